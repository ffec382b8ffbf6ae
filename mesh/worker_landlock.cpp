// Landlock rules of the mesh worker's sandbox (worker_sandbox.hpp): read the given files, write
// nothing. Raw system calls: glibc has no wrappers for them.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/worker_sandbox.hpp"

// Rights of later ABIs than the installed kernel headers know (the values are the kernel's).
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

namespace gpufem {
namespace {

/// Every file-system right the kernel's Landlock ABI `abi` can restrict.
std::uint64_t handled_rights(int abi)
{
    std::uint64_t rights = (1ULL << 13) - 1;  // ABI 1: execute .. make symbolic link
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return rights;
}

/// A Landlock ruleset's file descriptor, closed on scope exit.
struct RulesetFd {
    int fd;
    ~RulesetFd() { ::close(fd); }
};

/// Lets the ruleset open the file of descriptor `file` for reading.
void allow_reading(const RulesetFd& ruleset, int file)
{
    landlock_path_beneath_attr rule{};
    rule.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE;
    rule.parent_fd = file;
    if (::syscall(SYS_landlock_add_rule, ruleset.fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
        throw MeshSourceError(std::string("mesh worker sandbox: Landlock refused a rule for the mesh input: ") +
                              std::strerror(errno));
}

}  // namespace

int landlock_abi_version()
{
    const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? static_cast<int>(abi) : 0;
}

int restrict_files_with_landlock(const SandboxReads& reads)
{
    const int abi = landlock_abi_version();
    if (abi == 0) return 0;
    landlock_ruleset_attr attributes{};
    attributes.handled_access_fs = handled_rights(abi);
    const long created = ::syscall(SYS_landlock_create_ruleset, &attributes, sizeof(attributes), 0);
    if (created < 0)
        throw MeshSourceError(std::string("mesh worker sandbox: cannot create a Landlock ruleset: ") +
                              std::strerror(errno));
    const RulesetFd ruleset{static_cast<int>(created)};
    for (const int file : reads.files) allow_reading(ruleset, file);
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        ::syscall(SYS_landlock_restrict_self, ruleset.fd, 0) != 0)
        throw MeshSourceError(std::string("mesh worker sandbox: cannot apply Landlock: ") +
                              std::strerror(errno));
    return abi;
}

}  // namespace gpufem
