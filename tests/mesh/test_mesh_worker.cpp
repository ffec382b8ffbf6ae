// The mesh worker's failure paths: a worker that dies (killed as the kernel's out-of-memory
// killer does, or crashing) or ends without answering gives a MeshSourceError naming the mesh
// and the cause; gpufem itself goes on. (Its success path runs in every end-to-end test that
// meshes through Gmsh.)
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

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

/// The message of the MeshSourceError that meshing with this worker throws.
std::string worker_error(const std::string& executable, double time_limit = 60)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = "part.geo";
    spec.time_limit = time_limit;
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

}  // namespace
}  // namespace gpufem
