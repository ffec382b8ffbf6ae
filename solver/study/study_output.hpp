#pragma once
// A study's pages: study.md (the device, its copy bandwidth, the fastest choice at each point
// with a recommendation, the paper's numbers beside the measurements, every point) and the
// plots, made from study.json alone, so that `gpufem report` can make them again.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "solver/study/study_spec.hpp"

namespace gpufem {

/// study.json's "paper": the source, its GPU, notes and values.
nlohmann::json paper_json(const PaperSpec& paper);

/// study.md's text; plots: the PNG files beside it (the first is the metric's), or
/// plots_note when none could be drawn.
std::string study_markdown(const nlohmann::json& study, const std::vector<std::string>& plots,
                           const std::string& plots_note);

/// Draws the plots (with draw_plots; a failure is a warning in the log and in study.md) and
/// writes study.md into folder. Throws only when draw_plots is true and `required`.
void write_study_outputs(const std::filesystem::path& folder, const nlohmann::json& study, bool draw_plots,
                         bool required = false);

}  // namespace gpufem
