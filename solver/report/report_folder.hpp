#pragma once
// `gpufem report DIR`: the pictures of a run's, a sweep's or a study's output folder, with a
// one-page report.md beside them.
#include <filesystem>

namespace gpufem {

/// What an output folder holds.
enum class ReportedFolder { run, sweep, study };

/// The kind of output folder dir is. Throws std::runtime_error naming the folder when it holds
/// no finished run, sweep or study: no report.json (a failed run writes nothing), a sweep that
/// stopped at a failed point (its error), a damaged report.json.
ReportedFolder reported_kind(const std::filesystem::path& dir);

/// Draws the folder's plots and writes its page: a run's or a sweep's into output (default
/// dir/report/: report.md and the PNGs, replaced whole, or nothing when it fails), a study's
/// plots and study.md beside its study.json. Returns the page written.
std::filesystem::path write_folder_report(const std::filesystem::path& dir, const std::filesystem::path& output = {});

}  // namespace gpufem
