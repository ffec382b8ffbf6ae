#pragma once
// `gpufem study`: every point of a study run on one device, one after the other, each as
// `gpufem run` runs the base case with the point's keys; study.json and study.csv rewritten
// after each point (an interrupted study resumes: finished points are not run again), then
// study.md and the plots.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "solver/study/study_spec.hpp"

namespace gpufem {

/// Options from the command line.
struct StudyOptions {
    std::filesystem::path output_dir;  ///< "" = beside the study file, named after it
    std::string backend;               ///< --backend ("" = the base case's)
    bool check_memory = true;          ///< skip points whose estimate exceeds the free memory
    bool plots = true;                 ///< draw the plots at the end (a failure only warns)
};

/// The folder a study writes to.
std::filesystem::path study_folder(const StudySpec& spec, const StudyOptions& options);

/// Runs the study's points not finished earlier (in study_folder: points/<point>/ each, as a
/// run's output folder), writes study.json, study.csv, study.md and the plots, and returns
/// the record (study.json's content). Bad points (an unknown key, a bad value) are errors
/// before anything runs; a point that does not fit is skipped with the reason, one that fails
/// is recorded with its error, and the study goes on.
nlohmann::json run_study(const StudySpec& spec, const StudyOptions& options);

}  // namespace gpufem
