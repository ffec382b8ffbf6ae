// The mesh worker's failure paths: a worker that dies (killed as the kernel's out-of-memory
// killer does, or crashing) or ends without answering gives a MeshSourceError naming the mesh
// and the cause; gpufem itself goes on. (Its success path runs in every end-to-end test that
// meshes through Gmsh.)
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include "linalg/host_threads.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

/// An executable shell script standing in for the worker.
std::string fake_worker(const test::TempFolder& folder, const std::string& body)
{
    const auto path = folder / "worker.sh";
    {
        std::ofstream file(path);
        file << "#!/bin/sh\n" << body << "\n";
    }
    ::chmod(path.c_str(), 0755);
    return path.string();
}

/// The request the tests send: a .geo file (which no fake worker reads).
MeshSpec part_geo(double time_limit = 60)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = "part.geo";
    spec.time_limit = time_limit;
    return spec;
}

/// The message of the MeshSourceError that meshing with this worker throws.
std::string worker_error(const std::string& executable, double time_limit = 60)
{
    const MeshSpec spec = part_geo(time_limit);
    try {
        load_mesh_in_worker(spec, executable, 1);
    } catch (const MeshSourceError& error) {
        return error.what();
    }
    return "";
}

TEST(MeshWorker, KilledWorkerIsNamedWithTheLikelyCause)
{
    test::TempFolder folder;
    const std::string message = worker_error(fake_worker(folder, "kill -KILL $$"));
    EXPECT_NE(message.find("'part.geo'"), std::string::npos) << message;
    EXPECT_NE(message.find("signal 9"), std::string::npos) << message;
    EXPECT_NE(message.find("out-of-memory killer"), std::string::npos) << message;
}

TEST(MeshWorker, CrashedWorkerIsNamed)
{
    test::TempFolder folder;
    const std::string message = worker_error(fake_worker(folder, "kill -SEGV $$"));
    EXPECT_NE(message.find("signal 11"), std::string::npos) << message;
    EXPECT_NE(message.find("Gmsh crashed"), std::string::npos) << message;
}

TEST(MeshWorker, SilentWorkerAndMissingWorkerAreErrors)
{
    test::TempFolder folder;
    const std::string silent = worker_error(fake_worker(folder, "cat > /dev/null; exit 3"));
    EXPECT_NE(silent.find("exit code 3"), std::string::npos) << silent;
    const std::string missing = worker_error((folder / "no_such_program").string());
    EXPECT_NE(missing.find("could not be started"), std::string::npos) << missing;
}

TEST(MeshWorker, HangingWorkerIsStoppedAtTheTimeLimit)
{
    // A Gmsh that never finishes (a hang, or a mesh far too fine) is stopped after
    // mesh.time_limit and named, instead of holding the run forever.
    test::TempFolder folder;
    const auto start = std::chrono::steady_clock::now();
    const std::string message = worker_error(fake_worker(folder, "exec sleep 30"), 0.5);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(message.find("'part.geo'"), std::string::npos) << message;
    EXPECT_NE(message.find("mesh.time_limit (0.5 s)"), std::string::npos) << message;
    EXPECT_LT(seconds, 10.0);
}

/// The lines of a text file ("" lines dropped).
std::vector<std::string> lines_of(const std::filesystem::path& path)
{
    std::ifstream file(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

TEST(MeshWorker, PrestartedWorkerServesTheNextLoadOfItsSpec)
{
    test::TempFolder folder;
    const auto log = folder / "requests.txt";
    // Each worker writes the length of the request it read, then ends without a mesh.
    const std::string worker = fake_worker(folder, "wc -c | tr -d ' ' >> '" + log.string() + "'; exit 3");
    const MeshSpec spec = part_geo();
    set_mesh_worker(worker);
    prestart_mesh_worker(spec);
    prestart_mesh_worker(spec);  // one is kept: the second call does nothing
    const auto load_message = [&](const MeshSpec& s) {
        try {
            load_mesh_in_worker(s, worker, host_threads());
        } catch (const MeshSourceError& error) {
            return std::string(error.what());
        }
        return std::string();
    };
    const std::string message = load_message(spec);
    EXPECT_NE(message.find("exit code 3"), std::string::npos) << message;
    const std::vector<std::string> first = lines_of(log);
    ASSERT_EQ(first.size(), 1u);  // the load took the prestarted worker's reply

    // A load of another spec does not take the prestarted worker's reply: it starts its own
    // (whose request is 6 bytes longer) and the prestarted one is stopped.
    prestart_mesh_worker(spec);
    MeshSpec other = spec;
    other.path = "other_part.geo";
    EXPECT_NE(load_message(other).find("exit code 3"), std::string::npos);
    // The stopped prestarted worker may still log its own request, before the new one's or
    // after it (two processes appending): the new request is among the lines after the first.
    const std::vector<std::string> all = lines_of(log);
    ASSERT_GE(all.size(), 2u);
    const int longer = std::stoi(first[0]) + 6;
    const auto is_longer = [&](const std::string& line) { return std::stoi(line) == longer; };
    EXPECT_TRUE(std::any_of(all.begin() + 1, all.end(), is_longer))
        << "no worker read the other spec's request of " << longer << " bytes";
    set_mesh_worker("");
}

TEST(MeshWorker, UnusedPrestartedWorkerIsStopped)
{
    // A prestarted worker (meshing its request) whose reply is not wanted is killed and reaped,
    // not waited for.
    test::TempFolder folder;
    const auto log = folder / "pid.txt";
    const std::string worker = fake_worker(folder, "echo $$ > '" + log.string() + "'; exec sleep 30");
    const MeshSpec spec = part_geo();
    set_mesh_worker(worker);
    prestart_mesh_worker(spec);
    std::vector<std::string> lines;
    for (int i = 0; i < 500 && lines.empty(); ++i) {  // until the script has started
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        lines = lines_of(log);
    }
    ASSERT_EQ(lines.size(), 1u);
    const auto start = std::chrono::steady_clock::now();
    set_mesh_worker("");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
    const pid_t pid = std::stoi(lines[0]);
    EXPECT_NE(::kill(pid, 0), 0);  // reaped: no such process
}

TEST(MeshWorker, WorkerAsksGlibcForHugePagesKeepingTheUsersTunables)
{
    // Added where GLIBC_TUNABLES is absent or empty, appended to the user's other tunables, left
    // alone where the user set hugetlb; every other entry kept as it is.
    const char* none[] = {"PATH=/usr/bin", "HOME=/root", nullptr};
    EXPECT_EQ(mesh_worker_environment(none),
              (std::vector<std::string>{"PATH=/usr/bin", "HOME=/root", "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}));
    const char* empty[] = {"GLIBC_TUNABLES=", nullptr};
    EXPECT_EQ(mesh_worker_environment(empty), (std::vector<std::string>{"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}));
    const char* other[] = {"A=1", "GLIBC_TUNABLES=glibc.malloc.arena_max=2", nullptr};
    EXPECT_EQ(mesh_worker_environment(other),
              (std::vector<std::string>{"A=1", "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"}));
    const char* own[] = {"GLIBC_TUNABLES=glibc.malloc.hugetlb=0", nullptr};
    EXPECT_EQ(mesh_worker_environment(own), (std::vector<std::string>{"GLIBC_TUNABLES=glibc.malloc.hugetlb=0"}));

    // The worker process gets it, with this process's environment.
    test::TempFolder folder;
    const auto seen = folder / "environment.txt";
    ::setenv("GPUFEM_TEST_MARK", "kept", 1);
    const std::string worker =
        fake_worker(folder, "echo \"$GLIBC_TUNABLES $GPUFEM_TEST_MARK\" > '" + seen.string() + "'");
    EXPECT_FALSE(worker_error(worker).empty());  // the script answers nothing
    ::unsetenv("GPUFEM_TEST_MARK");
    const std::vector<std::string> lines = lines_of(seen);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("glibc.malloc.hugetlb=1"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find(" kept"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace gpufem
