// The seccomp filter of the mesh worker's sandbox (worker_sandbox.hpp), built with libseccomp.
// Everything not named here is allowed: Gmsh needs memory, threads, reading and the clock.
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <seccomp.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/worker_sandbox.hpp"

namespace gpufem {
namespace {

/// A libseccomp filter context, released on scope exit.
using FilterContext = std::unique_ptr<void, decltype(&seccomp_release)>;

/// System calls that start a program or a new process: the worker is ended (SIGSYS).
constexpr const char* killing_calls[] = {"execve", "execveat", "fork", "vfork"};

/// System calls that create, delete, rename or change files: refused with EPERM, so that Gmsh
/// reports an error and goes on.
constexpr const char* file_changing_calls[] = {
    "creat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
    "rmdir", "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate", "chmod",
    "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "fchownat", "lchown", "mknod",
    "mknodat", "utime", "utimes", "utimensat", "futimesat", "setxattr", "lsetxattr",
    "fsetxattr", "removexattr", "lremovexattr", "fremovexattr", "name_to_handle_at",
    "open_by_handle_at"};

/// System calls meshing never needs and that could reach past the sandbox (the network, other
/// processes, the kernel, file systems, asynchronous I/O that seccomp cannot see): EPERM.
constexpr const char* foreign_calls[] = {
    "socket", "ptrace", "process_vm_writev", "process_vm_readv", "mount", "umount2",
    "pivot_root", "chroot", "setns", "unshare", "bpf", "perf_event_open", "keyctl", "add_key",
    "request_key", "io_uring_setup", "userfaultfd", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "fanotify_init", "open_tree", "move_mount", "fsopen", "fsmount", "fspick", "mount_setattr"};

/// Adds a rule for the system call `name` (one this architecture lacks is skipped).
void add_rule(void* filter, std::uint32_t action, const char* name, unsigned conditions = 0,
              const scmp_arg_cmp* compare = nullptr)
{
    const int call = seccomp_syscall_resolve_name(name);
    if (call == __NR_SCMP_ERROR) return;
    const int added = seccomp_rule_add_array(filter, action, call, conditions, compare);
    if (added != 0)
        throw MeshSourceError(std::string("mesh worker sandbox: seccomp rule for ") + name +
                              " refused: " + std::strerror(-added));
}

/// open/openat (the flags are argument `flags_argument`) for writing, creating or truncating
/// fail with EACCES; reading is allowed.
void refuse_opening_for_writing(void* filter, const char* name, unsigned flags_argument)
{
    for (const unsigned long long flag : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
        const scmp_arg_cmp set{flags_argument, SCMP_CMP_MASKED_EQ, flag, flag};
        add_rule(filter, SCMP_ACT_ERRNO(EACCES), name, 1, &set);
    }
}

/// clone of a new process ends the worker; clone of a thread (CLONE_THREAD) is allowed.
/// clone3 (its flags in memory, out of seccomp's sight) answers ENOSYS: glibc then uses clone.
void allow_threads_only(void* filter)
{
    const scmp_arg_cmp no_thread{0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0};
    add_rule(filter, SCMP_ACT_KILL_PROCESS, "clone", 1, &no_thread);
    add_rule(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3");
}

/// ioctl requests that push input into a terminal (a program the user's shell would run once
/// gpufem ends) or drive the console, on the standard error gpufem shares: EPERM.
void refuse_terminal_injection(void* filter)
{
    for (const unsigned long long request : {TIOCSTI, TIOCLINUX}) {
        const scmp_arg_cmp is_request{1, SCMP_CMP_MASKED_EQ, 0xffffffffULL, request};
        add_rule(filter, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &is_request);
    }
}

}  // namespace

void install_worker_seccomp_filter()
{
    FilterContext filter(seccomp_init(SCMP_ACT_ALLOW), &seccomp_release);
    if (!filter) throw MeshSourceError("mesh worker sandbox: cannot initialise seccomp");
    // Every thread gets the filter (a thread started before it would escape it).
    seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_TSYNC, 1);
    for (const char* name : killing_calls) add_rule(filter.get(), SCMP_ACT_KILL_PROCESS, name);
    allow_threads_only(filter.get());
    refuse_opening_for_writing(filter.get(), "open", 1);
    refuse_opening_for_writing(filter.get(), "openat", 2);
    add_rule(filter.get(), SCMP_ACT_ERRNO(ENOSYS), "openat2");  // its flags are in memory
    for (const char* name : file_changing_calls) add_rule(filter.get(), SCMP_ACT_ERRNO(EPERM), name);
    for (const char* name : foreign_calls) add_rule(filter.get(), SCMP_ACT_ERRNO(EPERM), name);
    refuse_terminal_injection(filter.get());
    const int loaded = seccomp_load(filter.get());
    if (loaded != 0)
        throw MeshSourceError(std::string("mesh worker sandbox: cannot load the seccomp filter: ") +
                              std::strerror(-loaded));
}

}  // namespace gpufem
