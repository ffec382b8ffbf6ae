#include "solver/cli/prompt_return.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <spdlog/spdlog.h>

#include "linalg/device_runtime.hpp"

namespace gpufem {
namespace {

/// The write end of the pipe to the waiting process (the child's), or -1.
int exit_pipe = -1;
/// The child, in the waiting process (for the signal handler).
volatile std::sig_atomic_t child_pid = -1;

/// The signals that end a run, passed on to the child.
constexpr int passed_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void pass_on(int signal)
{
    if (child_pid > 0) ::kill(static_cast<pid_t>(child_pid), signal);
}

/// Ends the waiting process as the child ended: its exit status, or the same signal.
[[noreturn]] void end_as(int status)
{
    if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
    const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGABRT;
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    ::_exit(128 + signal);
}

/// The waiting process: the child's exit code from the pipe (then ends at once), or, when the
/// pipe closes without one, the child's own end. The passed signals, held back since the fork,
/// are let through (and passed on) once their handler knows the child: `mask` is the signal
/// mask from before the fork.
[[noreturn]] void wait_for(pid_t child, int read_end, const sigset_t& mask)
{
    child_pid = child;
    struct sigaction forward {};
    forward.sa_handler = pass_on;
    sigemptyset(&forward.sa_mask);
    for (const int signal : passed_signals) ::sigaction(signal, &forward, nullptr);
    ::pthread_sigmask(SIG_SETMASK, &mask, nullptr);
    int code = 0;
    std::size_t got = 0;
    while (got < sizeof code) {
        const ssize_t n = ::read(read_end, reinterpret_cast<char*>(&code) + got, sizeof code - got);
        if (n > 0) got += static_cast<std::size_t>(n);
        else if (n == 0 || errno != EINTR) break;
    }
    if (got == sizeof code) ::_exit(code);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR) ::_exit(1);
    end_as(status);
}

}  // namespace

void detach_teardown()
{
    // A sanitizer or profiler injected into the process (compute-sanitizer, Nsight) follows
    // it to its end, the device's release included: the process stays whole under one.
    if (exit_pipe >= 0 || std::getenv("CUDA_INJECTION64_PATH") != nullptr) return;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) return;
    const pid_t parent = ::getpid();
    // A signal to the waiting process before it can pass it on would end it (the default
    // action) while the child runs on: held back across the fork.
    sigset_t passed, previous;
    sigemptyset(&passed);
    for (const int signal : passed_signals) sigaddset(&passed, signal);
    ::pthread_sigmask(SIG_BLOCK, &passed, &previous);
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        ::close(ends[0]);
        ::close(ends[1]);
        return;
    }
    if (pid > 0) {
        ::close(ends[1]);
        wait_for(pid, ends[0], previous);
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);  // the child: as before
    ::close(ends[0]);
    // Ended with the waiting process if that is killed outright (SIGKILL) before the code.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::raise(SIGTERM);
    exit_pipe = ends[1];
}

int return_exit_code(int code)
{
    if (exit_pipe < 0) return code;
    // The device memory the run kept in its pool goes back first: a run started right after
    // this prompt sees it free (the context's own release then goes on beside it).
    const auto start = std::chrono::steady_clock::now();
    cuda::release_pooled_memory();
    spdlog::debug("device memory handed back in {:.3f} s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (auto logger = spdlog::default_logger()) logger->flush();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        ::close(null);
    }
    ::prctl(PR_SET_PDEATHSIG, 0);  // the waiting process ends now, on purpose
    const ssize_t written = ::write(exit_pipe, &code, sizeof code);
    (void)written;  // a waiting process gone: nothing to tell
    ::close(exit_pipe);
    exit_pipe = -1;
    return code;
}

}  // namespace gpufem
