#pragma once
// A study's record on disk: study.json (the study, the device, every point's row) rewritten
// after each point, so that an interrupted study resumes where it stopped, and study.csv.
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "solver/study/study_points.hpp"

namespace gpufem {

/// The name of a study's record in its output folder.
inline constexpr const char* study_json_file = "study.json";

/// A point's statuses in study.json: `done` (converged), `not_converged` (ran, the solver
/// stopped before the tolerance: performance studies run a fixed count of iterations),
/// `skipped` (does not fit: the reason), `failed` (the error).
inline constexpr const char* point_done = "done";
inline constexpr const char* point_not_converged = "not_converged";
inline constexpr const char* point_skipped = "skipped";
inline constexpr const char* point_failed = "failed";

/// Whether a row's point ran to the end (a resumed study does not run it again).
bool point_finished(const nlohmann::json& row);

/// What identifies a point across runs of a study: its case keys.
std::string point_key(const StudyPoint& point);

/// A fingerprint of the base case file's text and the backend: a resumed study reuses rows
/// only when it is unchanged.
std::string base_case_fingerprint(const std::filesystem::path& base_case, const std::string& backend);

/// The finished rows of an earlier run of the study in folder (by point_key), when its
/// study.json exists and has this fingerprint; empty otherwise (a damaged file is an error
/// naming it).
std::map<std::string, nlohmann::json> finished_rows(const std::filesystem::path& folder, const std::string& fingerprint);

/// study.csv: one line per point: its labels, status, sizes and every metric.
std::string study_csv(const nlohmann::json& study);

/// Reads a study.json (an error naming the file when it is not one).
nlohmann::json read_study_json(const std::filesystem::path& file);

/// The current time, UTC, ISO 8601 to the second.
std::string utc_now();

}  // namespace gpufem
