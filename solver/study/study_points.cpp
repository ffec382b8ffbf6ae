#include "solver/study/study_points.hpp"

#include <cctype>

#include <fmt/format.h>

namespace gpufem {
namespace {

/// text with every character but letters, digits, '.', '-' and '+' replaced by '-'.
std::string folder_safe(const std::string& text)
{
    std::string out;
    for (const char c : text)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ? c : '-';
    return out;
}

/// The point at digit positions `at` (one value index per axis).
StudyPoint make_point(const StudySpec& spec, const std::vector<std::size_t>& at, int index)
{
    StudyPoint point;
    point.index = index;
    point.overrides = spec.overrides;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
        const StudyAxisValue& value = spec.axes[a].values[at[a]];
        point.labels.push_back(value.label);
        point.overrides.insert(point.overrides.end(), value.overrides.begin(), value.overrides.end());
        point.folder += fmt::format("{}{}-{}", a ? "_" : "", folder_safe(spec.axes[a].name), folder_safe(value.label));
    }
    point.overrides.insert(point.overrides.end(), spec.cli_overrides.begin(), spec.cli_overrides.end());
    return point;
}

}  // namespace

std::vector<StudyPoint> expand_study(const StudySpec& spec)
{
    std::vector<StudyPoint> points;
    std::vector<std::size_t> at(spec.axes.size(), 0);
    for (int index = 0;; ++index) {
        points.push_back(make_point(spec, at, index));
        std::size_t a = spec.axes.size();
        while (a > 0 && ++at[a - 1] == spec.axes[a - 1].values.size()) at[--a] = 0;
        if (a == 0) return points;
    }
}

std::string point_labels(const StudySpec& spec, const StudyPoint& point, bool choices)
{
    std::string out;
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
        if (is_choice_axis(spec, spec.axes[a].name) == choices)
            out += (out.empty() ? "" : ", ") + spec.axes[a].name + " " + point.labels[a];
    return out;
}

}  // namespace gpufem
