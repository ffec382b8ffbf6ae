#pragma once
// The operating-system sandbox of the mesh worker (mesh_worker.hpp): Gmsh evaluates .geo
// scripts, and a script can run programs (System), write and delete files (Printf > FILE,
// General.TmpFileName), read any file (ListFromFile) or crash the process (a %n format). A
// lexical check of the script (mesh_input_guard.hpp) only gives a friendly first message;
// this sandbox is what holds:
// - no new privileges (prctl PR_SET_NO_NEW_PRIVS);
// - seccomp (libseccomp): starting a program or a new process ends the worker with SIGSYS
//   (threads are allowed); opening a file for writing, creating, deleting, renaming or
//   changing a file fails with EACCES/EPERM, as do sockets, pushing input into the terminal
//   (TIOCSTI) and the system calls a process never needs for meshing (mount, ptrace,
//   io_uring, ...);
// - Landlock (where the kernel has it): files can be opened for reading only when they are
//   among the readable files given, and nothing can be written or created anywhere. Files
//   already open (the reply pipe, standard error) are kept.
#include <string>
#include <vector>

namespace gpufem {

/// What the sandboxed worker may still read: the mesh input and its sidecar options file.
struct SandboxReads {
    std::vector<int> files;  ///< descriptors of the files that may be opened (again) for reading
};

/// Puts the calling process, all its threads, in the sandbox, for good. Call it before any
/// thread is started (seccomp is synchronised to every thread, Landlock binds the caller's).
/// Returns a line for the debug log (what was applied, or why Landlock was skipped: a kernel
/// without it); throws MeshSourceError when no-new-privileges or seccomp cannot be applied.
std::string enter_worker_sandbox(const SandboxReads& reads);

/// The highest Landlock ABI the running kernel supports (0: none).
int landlock_abi_version();

/// Restricts the file system of the calling thread (and threads it starts later) to reading
/// `reads.files`; no writes. Returns the Landlock ABI used, 0 when the kernel has none (nothing
/// is applied then). Throws MeshSourceError when Landlock is there but refuses the rules.
int restrict_files_with_landlock(const SandboxReads& reads);

/// Installs the worker's seccomp filter (see above). Throws MeshSourceError when it fails.
void install_worker_seccomp_filter();

}  // namespace gpufem
