#pragma once
// A study file: a base case, the case keys every point sets, and the axes whose every
// combination is a point; which axes are the choices compared at each point, the metric that
// compares them, and the paper's numbers to show beside the measurements.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "solver/study/study_metrics.hpp"

namespace gpufem {

/// One value of an axis: its label and the case keys it sets ("key=value", as --set takes).
struct StudyAxisValue {
    std::string label;
    std::vector<std::string> overrides;
};

/// An axis: its name (a dotted case key, or any name when its values are maps of keys) and
/// values, with the line it was written on.
struct StudyAxis {
    std::string name;
    std::vector<StudyAxisValue> values;
    int line = 0;
};

/// A number from a paper, at the point whose axes have these labels.
struct PaperValue {
    std::map<std::string, std::string> at;  ///< axis name -> label (axes left out: any)
    const StudyMetric* metric = nullptr;
    double value = 0;
    std::string note;
};

/// What a paper reports for the study's experiment, shown beside the measurements.
struct PaperSpec {
    std::string source;              ///< "Reguly & Giles 2012, Fig. 17"
    std::string gpu;                 ///< the GPU it measured on
    std::vector<std::string> notes;  ///< its findings in words
    std::vector<PaperValue> values;
};

/// A parsed study file.
struct StudySpec {
    std::filesystem::path file;
    std::string name;   ///< the file's stem
    std::string title;
    std::filesystem::path base_case;     ///< absolute
    std::vector<std::string> overrides;      ///< `set:`: every point's keys, before its axes'
    std::vector<std::string> cli_overrides;  ///< --set: every point's keys, after its axes'
    std::vector<StudyAxis> axes;
    std::vector<std::string> choose;     ///< the axes compared at each point
    const StudyMetric* metric = nullptr;
    std::vector<const StudyMetric*> also;  ///< more metrics shown for every point
    std::string x;                       ///< the plots' x axis (an axis that is not chosen)
    PaperSpec paper;
};

/// Reads a study file; cli_overrides (--set) are applied to every point after its axes' keys.
/// Throws CaseError naming the file, the line and the key for anything malformed.
StudySpec parse_study_file(const std::filesystem::path& file, const std::vector<std::string>& cli_overrides = {});

/// Whether axis is one of the chosen axes.
bool is_choice_axis(const StudySpec& spec, const std::string& axis);

/// A study file's reference (every key), for --help and the docs.
std::string study_file_reference();

}  // namespace gpufem
