#include "mesh/mesh_worker.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "linalg/host_threads.hpp"
#include "mesh/gmsh_mesh.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/worker_protocol.hpp"

extern char** environ;

namespace gpufem {
namespace {

using namespace worker_protocol;

/// A file descriptor closed on scope exit.
struct OwnedFd {
    int fd = -1;
    OwnedFd() = default;
    explicit OwnedFd(int owned) : fd(owned) {}
    OwnedFd(OwnedFd&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
    OwnedFd& operator=(OwnedFd&& other) noexcept
    {
        if (this != &other) {
            reset();
            fd = std::exchange(other.fd, -1);
        }
        return *this;
    }
    ~OwnedFd() { reset(); }
    void reset()
    {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

/// A started worker: its process, the request it was sent and our end of its reply pipe.
/// Destroyed unused, it kills a worker meshing its request and reaps the process.
struct WorkerProcess {
    std::string executable;
    pid_t pid = -1;
    OwnedFd reply_read;
    std::string request;  ///< the request already sent (request_bytes), or ""
    bool sent = false;    ///< whether all of it was written

    WorkerProcess() = default;
    WorkerProcess(WorkerProcess&& other) noexcept { *this = std::move(other); }
    WorkerProcess& operator=(WorkerProcess&& other) noexcept
    {
        if (this != &other) {
            end();
            executable = std::move(other.executable);
            pid = std::exchange(other.pid, -1);
            reply_read = std::move(other.reply_read);
            request = std::move(other.request);
            sent = other.sent;
        }
        return *this;
    }
    ~WorkerProcess() { end(); }
    /// Stops the process, if any (its reply is not wanted: a worker meshing a request it was
    /// sent is killed rather than waited for), closes the reply pipe and reaps it.
    void end()
    {
        if (pid > 0 && sent) ::kill(pid, SIGKILL);
        reply_read.reset();
        if (pid > 0) wait();
    }
    /// Lets the process end without waiting for it here: a thread of its own reaps it (where
    /// no thread can be started, it is waited for here).
    void reap_in_background()
    {
        try {
            std::thread([worker = pid] {
                int status = 0;
                while (::waitpid(worker, &status, 0) < 0 && errno == EINTR) {
                }
            }).detach();
            pid = -1;
        } catch (const std::system_error&) {
            wait();
        }
    }
    /// Waits for the process to end; returns its status.
    int wait()
    {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        pid = -1;
        return status;
    }
};

/// "the mesh worker (<executable> --mesh-worker)", for messages.
std::string worker_name(const std::string& executable)
{
    return "the mesh worker (" + executable + " " + mesh_worker_argument + ")";
}

/// The request's bytes as transfer_spec sends them.
std::string request_bytes(const MeshSpec& spec, int threads)
{
    ByteSink sink;
    Sender sender{sink};
    transfer_spec(sender, spec, threads);
    return std::move(sink.bytes);
}

/// Writes the request with SIGPIPE blocked (a worker that died early must give an error, not
/// end gpufem), then consumes a SIGPIPE raised meanwhile.
bool write_request(int fd, const std::string& request)
{
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    bool written = true;
    try {
        Channel out(fd);
        out.write_bytes(request.data(), request.size());
    } catch (const ChannelClosed&) {
        written = false;
    }
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return written;
}

/// The reply pipe's capacity asked for (Linux's fs.pipe-max-size allows it by default).
constexpr int reply_pipe_bytes = 1 << 20;

/// glibc's malloc tunable that advises its large blocks as transparent huge pages.
constexpr std::string_view huge_pages_tunable = "glibc.malloc.hugetlb=1";

/// In the child of fork (only async-signal-safe calls): dies with its parent (SIGKILL when the
/// thread that started it ends, and at once if the parent already ended before prctl), takes
/// the two pipe ends as standard input and output and runs the worker with the environment
/// `envp`; when it cannot, writes errno to `failure_fd` and exits.
[[noreturn]] void exec_worker(pid_t parent, int request_fd, int reply_fd, int failure_fd, char* const argv[],
                              char* const envp[])
{
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    if (::dup2(request_fd, STDIN_FILENO) >= 0 && ::dup2(reply_fd, STDOUT_FILENO) >= 0)
        ::execve(argv[0], argv, envp);
    const int error = errno;
    [[maybe_unused]] const ssize_t written = ::write(failure_fd, &error, sizeof(error));
    ::_exit(127);
}

/// The errno a child of exec_worker wrote on `failure_fd` (its write end closed here), 0 when
/// the exec succeeded (the pipe closed on exec without a word).
int exec_failure(OwnedFd failure_read)
{
    int error = 0;
    ssize_t got = 0;
    do {
        got = ::read(failure_read.fd, &error, sizeof(error));
    } while (got < 0 && errno == EINTR);
    return got == static_cast<ssize_t>(sizeof(error)) ? error : 0;
}

/// Starts `executable` as a mesh worker, its standard input and output on two new pipes, and
/// sends it `request` (request_bytes); its request pipe is then closed. The worker is killed
/// when this process (precisely: the calling thread) ends, so that it never outlives gpufem.
WorkerProcess start_worker(const std::string& executable, std::string request)
{
    const std::string what = worker_name(executable);
    int to_worker[2], from_worker[2], failure[2];
    if (::pipe2(to_worker, O_CLOEXEC) != 0)
        throw MeshSourceError(what + ": cannot create a pipe: " + std::strerror(errno));
    OwnedFd request_read{to_worker[0]}, request_write{to_worker[1]};
    if (::pipe2(from_worker, O_CLOEXEC) != 0)
        throw MeshSourceError(what + ": cannot create a pipe: " + std::strerror(errno));
    OwnedFd reply_read{from_worker[0]}, reply_write{from_worker[1]};
    // The reply carries the mesh (hundreds of MB for a large part): a pipe of 1 MiB, not the
    // default 64 KiB, means fewer switches between the worker writing and gpufem reading.
    // Where the system's fs.pipe-max-size refuses it, the default works.
    (void)::fcntl(from_worker[0], F_SETPIPE_SZ, reply_pipe_bytes);
    if (::pipe2(failure, O_CLOEXEC) != 0)
        throw MeshSourceError(what + ": cannot create a pipe: " + std::strerror(errno));
    OwnedFd failure_read{failure[0]}, failure_write{failure[1]};

    std::string argument = mesh_worker_argument;
    std::string program = executable;
    char* argv[] = {program.data(), argument.data(), nullptr};
    std::vector<std::string> environment = mesh_worker_environment(environ);  // before fork: it allocates
    std::vector<char*> envp;
    for (std::string& entry : environment) envp.push_back(entry.data());
    envp.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw MeshSourceError(what + " could not be started: " + std::strerror(errno));
    if (pid == 0) exec_worker(parent, request_read.fd, reply_write.fd, failure_write.fd, argv, envp.data());
    request_read.reset();
    reply_write.reset();
    failure_write.reset();
    WorkerProcess worker;
    worker.executable = executable;
    worker.pid = pid;
    if (const int error = exec_failure(std::move(failure_read)); error != 0) {
        worker.wait();
        throw MeshSourceError(what + " could not be started: " + std::strerror(error) +
                              (error == ENOENT ? " (gpufem-mesh-worker belongs beside the gpufem program: "
                                                 "reinstall gpufem)" : ""));
    }
    worker.reply_read = std::move(reply_read);
    worker.sent = write_request(request_write.fd, request);
    worker.request = std::move(request);
    return worker;
}

/// What the worker's exit status says, for an error message.
std::string describe_exit(int status)
{
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        std::string text = "was ended by signal " + std::to_string(signal) + " (" +
                           strsignal(signal) + ")";
        if (signal == SIGSYS)
            text += ": the mesh input tried to run a program or start a process, which the mesh "
                    "worker's sandbox forbids (if you trust the file, set mesh.allow_commands: "
                    "true in the case)";
        else if (signal == SIGKILL)
            text += ": most likely the kernel's out-of-memory killer; the mesh needs more memory "
                    "than this machine has";
        else if (signal == SIGABRT || signal == SIGSEGV || signal == SIGBUS)
            text += ": Gmsh crashed, possibly out of memory (the worker may use at most the "
                    "machine's physical memory), or in its meshing on several threads (try "
                    "mesh.gmsh_threads: 1)";
        return text;
    }
    if (WIFEXITED(status)) return "ended with exit code " + std::to_string(WEXITSTATUS(status));
    return "ended abnormally";
}

/// The executable load_mesh_isolated starts ("" = none), a worker started ahead of its
/// request (prestart_mesh_worker), and their lock.
std::mutex worker_mutex;
std::string worker_executable;
std::optional<WorkerProcess> prestarted_worker;
/// How a mesh through Gmsh is made without a worker (set_in_process_gmsh), or null.
InProcessGmsh in_process_gmsh = nullptr;

/// The prestarted worker if it runs `executable` and was sent `request` (else none: pid -1;
/// a prestarted worker with another request is ended).
WorkerProcess take_prestarted_worker(const std::string& executable, const std::string& request)
{
    std::optional<WorkerProcess> taken;
    {
        const std::lock_guard lock(worker_mutex);
        if (prestarted_worker) taken.emplace(std::move(*prestarted_worker));
        prestarted_worker.reset();
    }
    if (!taken || taken->executable != executable || taken->request != request) return {};
    return std::move(*taken);
}

/// The worker's answer: its reply code and the mesh or the error message.
struct WorkerAnswer {
    WorkerReply reply = WorkerReply::error;
    std::string message;
    GmshMesh made;
};

/// `seconds` after `start`.
std::chrono::steady_clock::time_point after(std::chrono::steady_clock::time_point start, double seconds)
{
    return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds));
}

/// Whether the script limit (not the whole time limit) bounds the evaluation of the script.
bool script_limit_binds(const MeshSpec& spec)
{
    return spec.kind == MeshSpec::Kind::geo && spec.script_time_limit < spec.time_limit;
}

/// Reads the worker's answer from `fd`. A .geo script must be evaluated (the worker's
/// script_read) within mesh.script_time_limit, everything within mesh.time_limit; past a limit
/// TimedOut names it.
WorkerAnswer receive_answer(int fd, const MeshSpec& spec)
{
    const auto start = std::chrono::steady_clock::now();
    Channel in(fd);
    Receiver receiver{in};
    WorkerAnswer answer;
    const bool script_limit = script_limit_binds(spec);
    in.set_deadline(after(start, script_limit ? spec.script_time_limit : spec.time_limit), script_limit);
    receiver.value(answer.reply);
    if (answer.reply == WorkerReply::script_read) {
        in.set_deadline(after(start, spec.time_limit), false);
        receiver.value(answer.reply);
    }
    if (answer.reply == WorkerReply::mesh) {
        const auto first = std::chrono::steady_clock::now();
        const std::size_t before = in.received();
        transfer_gmsh_mesh(receiver, answer.made);
        spdlog::debug("mesh worker: the mesh's {:.1f} MB received in {:.3f} s", 1e-6 * static_cast<double>(in.received() - before),
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count());
    } else {
        receiver.text(answer.message);
    }
    return answer;
}

/// The message for a worker stopped at a time limit: which limit, its value and the key.
std::string time_limit_message(const MeshSpec& spec, const std::string& name, bool script)
{
    std::ostringstream text;
    if (script)
        text << "meshing " << name << ": Gmsh did not finish evaluating the script within "
             << "mesh.script_time_limit (" << spec.script_time_limit << " s) and was stopped "
             << "(a loop or a Sleep in the script?); if the script needs longer, raise "
                "mesh.script_time_limit";
    else
        text << "meshing " << name << ": Gmsh did not finish within mesh.time_limit ("
             << spec.time_limit << " s) and was stopped; a smaller mesh (larger mesh.size, "
                "fewer refinements) or a larger mesh.time_limit";
    return text.str();
}

/// load_mesh_in_worker, with whether the degree chose the cells' order.
GmshMesh gmsh_mesh_in_worker(const MeshSpec& spec, const std::string& executable, int threads)
{
    const std::string what = worker_name(executable);
    const std::string request = request_bytes(spec, threads);
    WorkerProcess worker = take_prestarted_worker(executable, request);
    if (worker.pid <= 0) worker = start_worker(executable, request);
    const pid_t pid = worker.pid;
    OwnedFd reply_read = std::move(worker.reply_read);
    WorkerAnswer answer;
    bool received = worker.sent;
    std::optional<TimedOut> timed_out;
    if (worker.sent) {
        try {
            answer = receive_answer(reply_read.fd, spec);
        } catch (const ChannelClosed&) {
            received = false;
        } catch (const TimedOut& limit) {
            received = false;
            timed_out = limit;
            ::kill(pid, SIGKILL);
        }
    }
    reply_read.reset();
    if (received && answer.reply == WorkerReply::mesh) {
        // The mesh is here: the worker's end (the system taking back its memory, Gmsh's model
        // among it: a tenth of a second for millions of cells) goes on beside the run.
        worker.reap_in_background();
        return std::move(answer.made);
    }
    const int status = worker.wait();
    const std::string name = spec.kind == MeshSpec::Kind::shape ? "shape " + spec.shape
                                                                : "'" + spec.path + "'";
    if (timed_out) throw MeshSourceError(time_limit_message(spec, name, timed_out->script));
    if (!received)
        throw MeshSourceError("meshing " + name + ": " + what + " " + describe_exit(status));
    if (answer.reply == WorkerReply::out_of_memory) throw std::bad_alloc();
    if (answer.reply != WorkerReply::mesh) throw MeshSourceError(answer.message);
    return std::move(answer.made);
}

/// load_gmsh_mesh_isolated, with whether the degree chose the cells' order.
GmshMesh gmsh_mesh_isolated(const MeshSpec& spec)
{
    std::string executable;
    InProcessGmsh in_process = nullptr;
    {
        const std::lock_guard lock(worker_mutex);
        executable = worker_executable;
        in_process = in_process_gmsh;
    }
    if (!executable.empty()) return gmsh_mesh_in_worker(spec, executable, host_threads());
    if (in_process != nullptr) return in_process(spec);
    throw MeshSourceError("meshing " + (spec.kind == MeshSpec::Kind::shape ? "shape " + spec.shape : "'" + spec.path + "'") +
                          ": this program has no mesh worker (gpufem-mesh-worker belongs next to the gpufem "
                          "program) and cannot run Gmsh itself");
}

}  // namespace

std::vector<std::string> mesh_worker_environment(const char* const* environment)
{
    constexpr std::string_view key = "GLIBC_TUNABLES=";
    std::vector<std::string> entries;
    bool tunables = false;
    for (const char* const* entry = environment; entry && *entry; ++entry) {
        std::string text = *entry;
        if (text.starts_with(key)) {
            tunables = true;
            if (text.find("glibc.malloc.hugetlb") == std::string::npos)
                text += (text.size() > key.size() ? ":" : "") + std::string(huge_pages_tunable);
        }
        entries.push_back(std::move(text));
    }
    if (!tunables) entries.push_back(std::string(key) + std::string(huge_pages_tunable));
    return entries;
}

void prestart_mesh_worker(const MeshSpec& spec)
{
    const std::lock_guard lock(worker_mutex);
    if (worker_executable.empty() || !mesh_needs_gmsh(spec) || prestarted_worker) return;
    if (read_mesh_cache_ahead(spec)) return;  // a hit needs no worker; a refused file's load starts one
    try {
        prestarted_worker.emplace(start_worker(worker_executable, request_bytes(spec, host_threads())));
    } catch (const MeshSourceError&) {
        // The load starts its own worker and reports the failure there.
    }
}

void set_in_process_gmsh(InProcessGmsh load)
{
    const std::lock_guard lock(worker_mutex);
    in_process_gmsh = load;
}

void set_mesh_worker(const std::string& executable)
{
    std::optional<WorkerProcess> ended;  // ended outside the lock
    const std::lock_guard lock(worker_mutex);
    worker_executable = executable;
    if (prestarted_worker && prestarted_worker->executable != executable) ended.swap(prestarted_worker);
}

Mesh load_gmsh_mesh_isolated(const MeshSpec& spec) { return gmsh_mesh_isolated(spec).mesh; }

Mesh load_mesh_isolated(const MeshSpec& spec, const ExecPtr& device, MeshCacheStatus* cache)
{
    if (!mesh_needs_gmsh(spec)) {
        if (cache) *cache = {MeshCacheStatus::Outcome::off, "", "a built-in shape", ""};
        return load_generated_mesh(spec, device);
    }
    Mesh coarse = cached_gmsh_mesh(spec, [&] { return gmsh_mesh_isolated(spec); }, cache);
    return finish_gmsh_mesh(std::move(coarse), spec, device);
}

Mesh load_coarse_mesh_isolated(const MeshSpec& spec, MeshCacheStatus* cache)
{
    if (!mesh_needs_gmsh(spec)) throw std::invalid_argument("load_coarse_mesh_isolated: the mesh does not go through Gmsh");
    return cached_gmsh_mesh(spec, [&] { return gmsh_mesh_isolated(spec); }, cache);
}

Mesh load_mesh_in_worker(const MeshSpec& spec, const std::string& executable, int threads)
{
    return gmsh_mesh_in_worker(spec, executable, threads).mesh;
}

}  // namespace gpufem
