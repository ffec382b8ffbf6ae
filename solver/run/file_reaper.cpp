#include "solver/run/file_reaper.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gpufem {
namespace {

/// The longest path the helper takes (a longer one is removed by the caller).
constexpr std::size_t longest_path = 4000;

/// The helper's end of the connection (-1: none) and its process, under their lock.
std::mutex reaper_mutex;
int reaper_socket = -1;
pid_t reaper_process = -1;
/// The process that started the helper: a fork of it has none of its own until it starts one.
pid_t reaper_owner = -1;

/// Reads exactly n bytes of fd into `to`; false at the end of the stream or on an error.
bool read_exactly(int fd, char* to, std::size_t n)
{
    while (n > 0) {
        const ssize_t got = ::read(fd, to, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        to += got;
        n -= static_cast<std::size_t>(got);
    }
    return true;
}

/// Sends all of `message` on the socket (no SIGPIPE when the helper is gone); false on an error.
bool send_all(int fd, const std::string& message)
{
    std::size_t sent = 0;
    while (sent < message.size()) {
        const ssize_t n = ::send(fd, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

/// The helper, in the child of fork (async-signal-safe calls only). It keeps none of the
/// run's descriptors (a terminal or a pipe it held would keep a reader of gpufem's output
/// waiting), ignores the signals a terminal sends the job (it ends by itself when the run
/// has ended), and unlinks each path it is sent: a 4-byte length, then the path.
[[noreturn]] void reap(int socket_fd, int highest_fd)
{
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU})
        ::sigaction(signal, &ignore, nullptr);
    if (::dup2(socket_fd, STDIN_FILENO) < 0) ::_exit(1);
    if (::close_range(1, ~0U, 0) != 0)
        for (int fd = 1; fd <= highest_fd; ++fd) ::close(fd);
    char path[longest_path + 1];
    std::uint32_t length = 0;
    while (read_exactly(STDIN_FILENO, reinterpret_cast<char*>(&length), sizeof length) && length <= longest_path &&
           read_exactly(STDIN_FILENO, path, length)) {
        path[length] = '\0';
        ::unlink(path);
    }
    ::_exit(0);
}

}  // namespace

void start_file_reaper()
{
    const std::lock_guard lock(reaper_mutex);
    if (reaper_owner == ::getpid()) return;
    if (reaper_socket >= 0) ::close(reaper_socket);  // a fork's copy of its parent's connection
    reaper_socket = -1;
    reaper_process = -1;
    reaper_owner = ::getpid();
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
    const int highest_fd = static_cast<int>(std::clamp(::sysconf(_SC_OPEN_MAX), 1024L, 65536L));
    const pid_t pid = ::fork();
    if (pid == 0) reap(ends[1], highest_fd);
    ::close(ends[1]);
    if (pid < 0) {
        ::close(ends[0]);
        return;
    }
    reaper_socket = ends[0];
    reaper_process = pid;
}

void remove_replaced_file(const std::filesystem::path& path)
{
    std::error_code error;
    const std::string text = std::filesystem::absolute(path, error).string();
    if (!error && text.size() <= longest_path) {
        const std::lock_guard lock(reaper_mutex);
        if (reaper_socket >= 0 && reaper_owner == ::getpid()) {
            const auto length = static_cast<std::uint32_t>(text.size());
            std::string message(sizeof length, '\0');
            std::memcpy(message.data(), &length, sizeof length);
            message += text;
            if (send_all(reaper_socket, message)) return;
            ::close(reaper_socket);  // the helper is gone: files are removed here from now on
            reaper_socket = -1;
        }
    }
    std::filesystem::remove(path, error);
}

pid_t file_reaper_pid()
{
    const std::lock_guard lock(reaper_mutex);
    return reaper_owner == ::getpid() ? reaper_process : -1;
}

void replace_file(const std::filesystem::path& staged, const std::filesystem::path& final_path)
{
    std::error_code error;
    const bool replaces_file = std::filesystem::symlink_status(final_path, error).type() ==
                               std::filesystem::file_type::regular;
    if (replaces_file && ::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, final_path.c_str(), RENAME_EXCHANGE) == 0) {
        remove_replaced_file(staged);  // the staged name now holds the previous file
        return;
    }
    std::filesystem::rename(staged, final_path);
}

}  // namespace gpufem
