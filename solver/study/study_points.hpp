#pragma once
// The points of a study: every combination of its axes' values, in the order the axes are
// written (the last axis varying fastest), each with its case keys and its folder.
#include <string>
#include <vector>

#include "solver/study/study_spec.hpp"

namespace gpufem {

/// One point of a study.
struct StudyPoint {
    int index = 0;
    std::vector<std::string> labels;     ///< one per axis, in the axes' order
    std::vector<std::string> overrides;  ///< the study's set, the axes' keys, then --set
    std::string folder;                  ///< under the study's points/: "degree-2_format-ell"
};

/// Every point of the study.
std::vector<StudyPoint> expand_study(const StudySpec& spec);

/// "degree 2, precision float": the point's labels of the axes that are chosen (choices true)
/// or of the others (choices false).
std::string point_labels(const StudySpec& spec, const StudyPoint& point, bool choices);

}  // namespace gpufem
