#pragma once
// Files removed when gpufem is interrupted (SIGINT, SIGTERM, SIGHUP): the staged outputs
// register their temporary files here, and the signal handler unlinks them (and removes an
// output folder the run created, if it is empty) before the process ends by the signal, so
// an interrupted run leaves no partial output.
#include <filesystem>

namespace gpufem {

/// Installs the handler for SIGINT, SIGTERM and SIGHUP (once; call early in main). After
/// cleaning up, the handler restores the default action and raises the signal again, so the
/// exit status says which signal ended the process.
void install_interrupt_cleanup();

/// Registers a file (or, with is_folder, an empty folder) to remove on interruption; returns
/// a slot to release once the path is committed or removed (-1 when the table is full: then
/// the path is not cleaned up on interruption).
int register_for_cleanup(const std::filesystem::path& path, bool is_folder = false);

/// Releases a slot from register_for_cleanup (nothing for -1).
void release_cleanup(int slot);

}  // namespace gpufem
