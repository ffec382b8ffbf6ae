#include "mesh/worker_sandbox.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <sys/prctl.h>

#include "mesh/gmsh_session.hpp"

namespace gpufem {

std::string enter_worker_sandbox(const SandboxReads& reads)
{
    // No new privileges: required by seccomp and Landlock for an unprivileged process, and a
    // set-user-ID program could not gain rights from the worker anyway.
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        throw MeshSourceError(std::string("mesh worker sandbox: cannot set no-new-privileges: ") +
                              std::strerror(errno));
    // Landlock first, then seccomp (which leaves Landlock's system calls alone either way).
    int abi = 0;
    try {
        abi = restrict_files_with_landlock(reads);
        install_worker_seccomp_filter();
    } catch (const MeshSourceError& error) {
        throw MeshSourceError(std::string(error.what()) +
                              "; Gmsh does not run outside its sandbox unless the case sets "
                              "mesh.allow_commands: true");
    }
    if (abi == 0)
        return "mesh worker sandbox: seccomp applied; Landlock skipped (the kernel has none): "
               "reads are not confined to the mesh files";
    return "mesh worker sandbox: seccomp and Landlock (ABI " + std::to_string(abi) +
           ") applied; readable: the mesh files only";
}

}  // namespace gpufem
