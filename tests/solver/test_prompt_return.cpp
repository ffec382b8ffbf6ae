// The prompt back before the teardown (solver/cli/prompt_return): the process the shell started
// ends with the child's exit code as soon as the child sends it, and its output has ended by
// then; a child that ends otherwise is repeated; the signals that end a run reach the child,
// and its clean-up is done before the waiting process ends.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "solver/cli/prompt_return.hpp"

namespace fs = std::filesystem;
using namespace gpufem;

namespace {

using clock_type = std::chrono::steady_clock;

/// A process (the one a shell would start) whose stdout is a pipe read here: it runs body,
/// which may call detach_teardown, and ends with body's return. Returns its pid and the read
/// end.
template <typename Body>
std::pair<pid_t, int> start(Body body)
{
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    std::cout.flush();
    std::fflush(nullptr);  // the test program's own output, not the child's
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(out[0]);
        ::dup2(out[1], STDOUT_FILENO);
        ::close(out[1]);
        ::_exit(body());
    }
    ::close(out[1]);
    return {pid, out[0]};
}

/// Everything the pipe gives until its end.
std::string read_all(int fd)
{
    std::string text;
    char buffer[256];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
    return text;
}

/// Seconds since start.
double since(clock_type::time_point start) { return std::chrono::duration<double>(clock_type::now() - start).count(); }

}  // namespace

TEST(PromptReturn, TheExitCodeAndTheOutputEndBeforeTheTeardown)
{
    const auto started = clock_type::now();
    const auto [pid, out] = start([] {
        detach_teardown();
        std::printf("the summary\n");
        const int code = return_exit_code(3);
        std::printf("after the code: not seen\n");
        std::fflush(stdout);
        ::sleep(3);  // the device's release
        return code;
    });
    EXPECT_EQ(read_all(out), "the summary\n");
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_LT(since(started), 2.0) << "the waiting process waited for the teardown";
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST(PromptReturn, AChildThatEndsWithoutItsCodeIsRepeated)
{
    for (const int way : {0, 1}) {
        const auto [pid, out] = start([way] {
            detach_teardown();
            std::printf("partial\n");
            std::fflush(stdout);
            if (way == 0) ::_exit(5);  // as std::exit would, without the code sent
            ::raise(SIGUSR1);          // a crash's signal
            return 0;
        });
        EXPECT_EQ(read_all(out), "partial\n");
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        if (way == 0) EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 5) << status;
        else EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1) << status;
    }
}

TEST(PromptReturn, ASignalToTheWaitingProcessEndsTheChildFirst)
{
    const fs::path marker = fs::temp_directory_path() / ("gpufem_prompt_return_" + std::to_string(::getpid()));
    fs::remove(marker);
    const auto [pid, out] = start([&marker] {
        detach_teardown();
        static std::string path;
        path = marker.string();
        std::signal(SIGTERM, [](int signal) {  // the child's clean-up, a little slow
            ::usleep(200000);
            std::ofstream(path) << "cleaned";
            std::signal(signal, SIG_DFL);
            ::raise(signal);
        });
        std::printf("ready\n");
        std::fflush(stdout);
        ::sleep(30);
        return 0;
    });
    char first[6] = {};
    ASSERT_EQ(::read(out, first, sizeof first), static_cast<ssize_t>(sizeof first));  // "ready\n"
    ASSERT_EQ(::kill(pid, SIGTERM), 0);  // the waiting process alone, as `kill PID` would
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
    EXPECT_TRUE(fs::exists(marker)) << "the waiting process ended before the child's clean-up";
    ::close(out);
    fs::remove(marker);
}
