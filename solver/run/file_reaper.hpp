#pragma once
// Removing replaced output files off the user's wall clock. When a run's result.vtu replaces
// the previous run's, the kernel frees the old file's page cache and blocks inside the call
// that drops its last name: 0.1-1 s for a few hundred MB written a moment before, on the
// critical path between the last phase and the prompt. A small helper process, forked when
// the run starts (before threads and the CUDA context), unlinks such files instead; it ends
// when this process has ended and it has removed what it was given.
#include <filesystem>

#include <sys/types.h>

namespace gpufem {

/// Starts the helper (once per process; later calls do nothing; a fork of a process with a
/// helper starts one of its own). Call it early, while the
/// process is small and has no device context: the helper is a fork of it. When fork fails,
/// remove_replaced_file removes files itself.
void start_file_reaper();

/// Removes `path` (a file this process no longer needs, such as the previous result it just
/// replaced): by the helper when it runs, else here, at once.
void remove_replaced_file(const std::filesystem::path& path);

/// The helper's process id (-1 when none was started): for tests.
pid_t file_reaper_pid();

/// Moves `staged` to `final_path`, replacing what is there, and has the replaced file removed
/// by remove_replaced_file: the two names are exchanged atomically (renameat2 RENAME_EXCHANGE),
/// so that readers see the old file or the new one, never none. Where the file system cannot
/// exchange names, a plain rename (which frees the old file in the call). Throws
/// std::filesystem::filesystem_error when the move fails.
void replace_file(const std::filesystem::path& staged, const std::filesystem::path& final_path);

}  // namespace gpufem
