// Staged outputs and the helper that removes replaced files: a commit replaces the previous
// files (their names exchanged, the old contents removed beside the run), the helper holds
// none of the run's descriptors, outlives a terminal's signals, ends with its parent, and a
// file the helper cannot take is removed at once.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "random_values.hpp"
#include "solver/run/file_reaper.hpp"
#include "solver/run/output_files.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

namespace {

/// A fresh folder under the system's temporary folder, removed at the end.
struct ScratchFolder {
    fs::path path;
    ScratchFolder()
    {
        path = fs::temp_directory_path() / ("gpufem-outputs-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(std::random_device{}()));
        fs::create_directories(path);
    }
    ~ScratchFolder()
    {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

/// n random bytes of a seeded generator, as text.
std::string random_bytes(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    return bytes;
}

std::string contents(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const fs::path& file, const std::string& bytes)
{
    std::ofstream(file, std::ios::binary) << bytes;
}

/// Whether `done` becomes true within `seconds` (polled every 5 ms).
template <typename Done>
bool within(double seconds, Done done)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

/// The names in a folder.
std::vector<std::string> names_in(const fs::path& folder)
{
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    return names;
}

/// Whether process pid has ended (gone, or a zombie awaiting its new parent).
bool ended(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!stat) return true;
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

}  // namespace

TEST(FileReaper, HelperHoldsOnlyItsConnectionAndRemovesWhatItIsSent)
{
    start_file_reaper();
    const pid_t helper = file_reaper_pid();
    ASSERT_GT(helper, 0);
    start_file_reaper();  // once per process
    EXPECT_EQ(file_reaper_pid(), helper);
    // A terminal, pipe or file of the run kept open by the helper would keep a reader of
    // gpufem's output waiting after gpufem ended.
    // (Descriptors at or above the open-file limit are a tool's that runs the program, such
    // as valgrind's: no program can hold one there.)
    const fs::path descriptors = "/proc/" + std::to_string(helper) + "/fd";
    rlimit limit{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
    const auto programs = [&] {
        std::vector<std::string> held;
        for (const std::string& name : names_in(descriptors))
            if (std::stoull(name) < limit.rlim_cur) held.push_back(name);
        return held;
    };
    EXPECT_TRUE(within(10.0, [&] { return programs() == std::vector<std::string>{"0"}; }))
        << "the helper holds " << programs().size() << " descriptors";

    ScratchFolder folder;
    const unsigned seed = test::random_seed();
    std::vector<fs::path> files;
    for (int k = 0; k < 5; ++k) {
        files.push_back(folder.path / ("old-" + std::to_string(k)));
        write_file(files.back(), random_bytes(100000 + 1000 * static_cast<std::size_t>(k), seed + k));
    }
    // The helper ignores the signals a terminal sends the job (Ctrl-C reaches every process
    // of the foreground group): what it is sent is still removed.
    ASSERT_EQ(::kill(helper, SIGINT), 0);
    for (const fs::path& file : files) remove_replaced_file(file);
    EXPECT_TRUE(within(20.0, [&] { return names_in(folder.path).empty(); }))
        << names_in(folder.path).size() << " files still there";
    EXPECT_FALSE(ended(helper));
}

TEST(FileReaper, CommitReplacesThePreviousFilesWhoseContentsGoBesideTheRun)
{
    start_file_reaper();
    ScratchFolder folder;
    const unsigned seed = test::random_seed();
    const std::string old_vtu = random_bytes(3 << 20, seed), new_vtu = random_bytes(2 << 20, seed + 1);
    write_file(folder.path / "result.vtu", old_vtu);
    write_file(folder.path / "report.json", "{\"old\": true}\n");
    {
        StagedOutputs outputs(folder.path);
        write_file(outputs.stage("result.vtu"), new_vtu);
        outputs.write_text("report.json", "{\"new\": true}\n");
        outputs.write_text("spmv_timings.csv", "iteration,spmv,format,seconds\n");
        // Before the commit the previous results are untouched.
        EXPECT_EQ(contents(folder.path / "result.vtu"), old_vtu);
        outputs.commit();
    }
    EXPECT_EQ(contents(folder.path / "result.vtu"), new_vtu);
    EXPECT_EQ(contents(folder.path / "report.json"), "{\"new\": true}\n");
    EXPECT_EQ(contents(folder.path / "spmv_timings.csv"), "iteration,spmv,format,seconds\n");
    // The previous files, exchanged onto the staged names, are removed by the helper.
    EXPECT_TRUE(within(20.0, [&] { return names_in(folder.path).size() == 3; }))
        << names_in(folder.path).size() << " names, the previous files' hidden copies not removed";
}

TEST(FileReaper, ReplacingAFolderFailsAndLeavesBothInPlace)
{
    ScratchFolder folder;
    fs::create_directories(folder.path / "result.vtu" / "inside");
    write_file(folder.path / ".staged", "new");
    EXPECT_THROW(replace_file(folder.path / ".staged", folder.path / "result.vtu"), fs::filesystem_error);
    EXPECT_TRUE(fs::is_directory(folder.path / "result.vtu" / "inside"));
    EXPECT_EQ(contents(folder.path / ".staged"), "new");
    // Nothing to replace: a plain move.
    replace_file(folder.path / ".staged", folder.path / "fresh.txt");
    EXPECT_EQ(contents(folder.path / "fresh.txt"), "new");
    EXPECT_FALSE(fs::exists(folder.path / ".staged"));
}

TEST(FileReaper, HelperEndsWithItsParentAfterRemovingWhatItWasSent)
{
    start_file_reaper();
    const pid_t own_helper = file_reaper_pid();
    ScratchFolder folder;
    const fs::path file = folder.path / "replaced";
    write_file(file, random_bytes(1 << 20, test::random_seed()));
    int pipe_ends[2];
    ASSERT_EQ(::pipe(pipe_ends), 0);
    const pid_t parent = ::fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {  // a fork: a helper of its own, handed the file, then the fork ends
        ::close(pipe_ends[0]);
        const bool none_inherited = file_reaper_pid() == -1;
        start_file_reaper();
        const pid_t helper = file_reaper_pid();
        remove_replaced_file(file);
        const bool sent = ::write(pipe_ends[1], &helper, sizeof helper) == static_cast<ssize_t>(sizeof helper);
        ::_exit(sent && none_inherited ? 0 : 1);
    }
    ::close(pipe_ends[1]);
    pid_t helper = -1;
    ASSERT_EQ(::read(pipe_ends[0], &helper, sizeof helper), static_cast<ssize_t>(sizeof helper));
    ::close(pipe_ends[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(parent, &status, 0), parent);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    ASSERT_GT(helper, 0);
    EXPECT_NE(helper, own_helper);
    EXPECT_TRUE(within(20.0, [&] { return ended(helper); })) << "the helper outlived its parent";
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(ended(own_helper));
}
