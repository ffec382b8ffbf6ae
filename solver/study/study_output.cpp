#include "solver/study/study_output.hpp"

#include <iostream>
#include <map>

#include <fmt/format.h>

#include "solver/report/plot_script.hpp"
#include "solver/run/output_files.hpp"
#include "solver/study/study_metrics.hpp"
#include "solver/study/study_state.hpp"

namespace gpufem {

nlohmann::json paper_json(const PaperSpec& paper)
{
    nlohmann::json values = nlohmann::json::array();
    for (const PaperValue& v : paper.values)
        values.push_back({{"at", v.at}, {"metric", v.metric->name}, {"unit", v.metric->unit}, {"value", v.value},
                          {"note", v.note}});
    return {{"source", paper.source}, {"gpu", paper.gpu}, {"notes", paper.notes}, {"values", values}};
}

namespace {

/// The points that share the labels of every axis that is not chosen, in study order.
struct StudyGroup {
    std::string point;                      ///< "degree 2, precision float"
    std::vector<const nlohmann::json*> rows;
};

/// "axis label, ..." of a row, for the chosen axes (choices) or the others.
std::string row_labels(const nlohmann::json& study, const nlohmann::json& row, bool choices, bool with_names)
{
    std::string out;
    for (const nlohmann::json& axis : study["axes"]) {
        if (axis.value("chosen", false) != choices) continue;
        const std::string name = axis["name"].get<std::string>();
        out += (out.empty() ? "" : ", ") + (with_names ? name + " " : std::string()) +
               row["labels"].value(name, std::string());
    }
    return out.empty() ? "all" : out;
}

/// The groups of the study's points.
std::vector<StudyGroup> group_points(const nlohmann::json& study)
{
    std::vector<StudyGroup> groups;
    std::map<std::string, std::size_t> index;
    for (const nlohmann::json& row : study["points"]) {
        const std::string point = row_labels(study, row, false, true);
        const auto [it, added] = index.emplace(point, groups.size());
        if (added) groups.push_back({point, {}});
        groups[it->second].rows.push_back(&row);
    }
    return groups;
}

/// A row's value of a metric (0 when the point did not run).
double metric_of(const nlohmann::json& row, const std::string& name)
{
    return row.contains("metrics") ? row["metrics"].value(name, 0.0) : 0.0;
}

/// The best and the second best rows of a group by the metric (null when none ran).
std::pair<const nlohmann::json*, const nlohmann::json*> best_two(const StudyGroup& group, const StudyMetric& metric)
{
    const nlohmann::json* best = nullptr;
    const nlohmann::json* second = nullptr;
    for (const nlohmann::json* row : group.rows) {
        const double value = metric_of(*row, metric.name);
        if (value <= 0) continue;
        if (!best || metric_better(metric, value, metric_of(*best, metric.name))) {
            second = best;
            best = row;
        } else if (!second || metric_better(metric, value, metric_of(*second, metric.name))) {
            second = row;
        }
    }
    return {best, second};
}

/// SpMVs after which the row's conversion has repaid itself against the baseline's (faster
/// SpMV, dearer conversion); "" when it is not dearer or not faster, or the operator is the same.
std::string break_even(const nlohmann::json& row, const nlohmann::json& baseline)
{
    const double conversion = metric_of(row, "conversion_seconds") - metric_of(baseline, "conversion_seconds");
    const double gain = metric_of(baseline, "spmv_seconds") - metric_of(row, "spmv_seconds");
    const bool same_operator = row.value("format", "") == baseline.value("format", "") &&
                               row.value("format_parameters", "") == baseline.value("format_parameters", "");
    if (same_operator || conversion <= 0 || gain <= 0 || metric_of(row, "spmv_seconds") <= 0) return "";
    return fmt::format("{:.0f}", conversion / gain);
}

}  // namespace

namespace {

/// How much better a is than b by the metric (1.31 for 31% better; 0 when either is missing).
double lead(const StudyMetric& metric, double a, double b)
{
    if (a <= 0 || b <= 0) return 0;
    return metric.higher_is_better ? a / b : b / a;
}

/// Differences of a choice over the next below this are called a tie: timings vary by a few
/// percent from run to run.
constexpr double tie_lead = 1.05;

/// One point's recommendation: the fastest choice, or either of the two when they are within
/// tie_lead of each other.
std::string point_recommendation(const std::string& best, const std::string& next, double r)
{
    if (r <= 0) return "use " + best;
    if (r < tie_lead) return fmt::format("either {} or {} (within {:.0f}%)", best, next, 100.0 * (r - 1.0));
    return fmt::format("use {}: {:.2f}x, {:.0f}% less time than {}", best, r, 100.0 * (1.0 - 1.0 / r), next);
}

/// The study's recommendation from how often each choice was the fastest.
std::string study_recommendation(const std::map<std::string, int>& wins, int ran)
{
    std::string top;
    for (const auto& [choice, count] : wins)
        if (top.empty() || count > wins.at(top)) top = choice;
    if (top.empty()) return "";
    const int count = wins.at(top);
    if (count == ran) return fmt::format("\n**Recommendation:** {}: the fastest at every point that ran ({}).\n", top, ran);
    if (2 * count > ran)
        return fmt::format("\n**Recommendation:** {}: the fastest at {} of the {} points that ran; the table names the others.\n",
                           top, count, ran);
    return fmt::format("\n**Recommendation:** no choice is the fastest at most points ({} at {} of {}): take each "
                       "point's from the table.\n", top, count, ran);
}

/// The table of the fastest choice at each point, and the recommendation under it.
std::string fastest_section(const nlohmann::json& study, const StudyMetric& metric)
{
    std::string out = fmt::format("## Fastest choice per point\n\nBy {} ({}, {} is better); a lead under {:.0f}% is "
                                  "called a tie. The last column: the SpMVs after which the fastest choice's dearer "
                                  "conversion has paid for itself against the first choice's.\n\n| point | fastest | {} | "
                                  "next | ahead by | recommendation | conversion repaid after (SpMVs) |\n"
                                  "|---|---|---|---|---|---|---|\n",
                                  metric.name, metric.unit, metric.higher_is_better ? "higher" : "lower",
                                  100.0 * (tie_lead - 1.0), metric.unit);
    std::map<std::string, int> wins;
    int ran = 0;
    for (const StudyGroup& group : group_points(study)) {
        const auto [best, second] = best_two(group, metric);
        if (!best) {
            out += "| " + group.point + " | none ran | | | | | |\n";
            continue;
        }
        const std::string choice = row_labels(study, *best, true, true);
        const std::string next = second ? row_labels(study, *second, true, true) : "";
        const double r = second ? lead(metric, metric_of(*best, metric.name), metric_of(*second, metric.name)) : 0;
        ++wins[choice];
        ++ran;
        out += fmt::format("| {} | {} | {:.4g} | {} | {} | {} | {} |\n", group.point, choice, metric_of(*best, metric.name),
                           next, r > 0 ? fmt::format("{:.2f}x", r) : "", point_recommendation(choice, next, r),
                           break_even(*best, *group.rows.front()));
    }
    return out + study_recommendation(wins, ran);
}

/// Whether a row's labels match a paper value's `at`.
bool matches(const nlohmann::json& row, const nlohmann::json& at)
{
    for (const auto& [axis, label] : at.items())
        if (row["labels"].value(axis, std::string()) != label.get<std::string>()) return false;
    return true;
}

/// The paper's source, GPU, notes and its numbers beside ours.
std::string paper_section(const nlohmann::json& study)
{
    const nlohmann::json& paper = study["paper"];
    if (paper.value("source", "").empty()) return "";
    std::string out = "## The paper\n\n" + paper["source"].get<std::string>() + ", measured on " +
                      paper.value("gpu", std::string("(GPU not named)")) + "; ours on " + study["device"].get<std::string>() + ".\n";
    if (!paper["notes"].empty()) out += "\n";
    for (const nlohmann::json& note : paper["notes"]) out += "- " + note.get<std::string>() + "\n";
    if (paper["values"].empty()) return out;
    out += "\n| point | metric | paper | ours | ours / paper | note |\n|---|---|---|---|---|---|\n";
    for (const nlohmann::json& value : paper["values"]) {
        std::string at;
        for (const auto& [axis, label] : value["at"].items()) at += (at.empty() ? "" : ", ") + axis + " " + label.get<std::string>();
        std::vector<double> ours;
        for (const nlohmann::json& row : study["points"])
            if (matches(row, value["at"]) && metric_of(row, value["metric"]) > 0) ours.push_back(metric_of(row, value["metric"]));
        const double mine = ours.empty() ? 0 : ours.front();
        out += fmt::format("| {} | {} ({}) | {:.4g} | {} | {} | {} |\n", at.empty() ? "all" : at, value["metric"].get<std::string>(),
                           value["unit"].get<std::string>(), value["value"].get<double>(),
                           mine > 0 ? fmt::format("{:.4g}", mine) : "not run", mine > 0 ? fmt::format("{:.2f}", mine / value["value"].get<double>()) : "",
                           value["note"].get<std::string>());
    }
    return out;
}

}  // namespace

namespace {

/// Every point: its labels, status, sizes and the main measures; then why points were
/// skipped or failed.
std::string points_section(const nlohmann::json& study, const StudyMetric& metric)
{
    std::string out = "## Every point\n\n|";
    std::string rule = "|";
    for (const nlohmann::json& axis : study["axes"]) {
        out += fmt::format(" {} |", axis["name"].get<std::string>());
        rule += "---|";
    }
    out += fmt::format(" status | unknowns | nnz/row | iterations | {} ({}) |", metric.name, metric.unit);
    std::vector<std::string> columns{"spmv_GBps", "spmv_percent_of_copy"};
    for (const nlohmann::json& name : study.value("also", nlohmann::json::array())) columns.push_back(name.get<std::string>());
    for (const std::string& name : columns) {
        const StudyMetric& also = study_metrics().at(name);
        out += " " + also.name + " (" + also.unit + ") |";
        rule += "---|";
    }
    out += "\n" + rule + "---|---|---|---|---|\n";
    std::string problems;
    for (const nlohmann::json& row : study["points"]) {
        out += "|";
        for (const nlohmann::json& axis : study["axes"])
            out += fmt::format(" {} |", row["labels"].value(axis["name"].get<std::string>(), std::string()));
        out += fmt::format(" {} |", row.value("status", ""));
        if (point_finished(row)) {
            out += fmt::format(" {} | {:.1f} | {} | {:.4g} |", row.value("unknowns", 0), row.value("nnz_per_row", 0.0),
                               row.value("iterations", 0), metric_of(row, metric.name));
            for (const std::string& name : columns) out += fmt::format(" {:.4g} |", metric_of(row, name));
        } else {
            for (std::size_t c = 0; c < columns.size() + 4; ++c) out += " |";
        }
        out += "\n";
        if (row.contains("reason")) problems += "- `" + row.value("folder", "") + "`: " + row["reason"].get<std::string>() + "\n";
    }
    if (!problems.empty()) out += "\n### Skipped and failed points\n\n" + problems;
    return out;
}

/// study.md's head: the study, the device and the copy bandwidth, the counts of points.
std::string header_section(const nlohmann::json& study, const StudyMetric& metric)
{
    std::map<std::string, int> counts;
    for (const nlohmann::json& row : study["points"]) ++counts[row.value("status", "")];
    return fmt::format("# {}\n\nStudy `{}` on the base case `{}`, gpufem {}, {}.\n\n"
                       "- device: **{}**; copy bandwidth measured in this run: **{:.1f} GB/s**\n"
                       "- metric: `{}` ({}): {}\n"
                       "- points: {} ({} converged, {} stopped before the tolerance, {} skipped, {} failed){}\n\n",
                       study.value("title", ""), std::filesystem::path(study.value("study_file", "")).filename().string(),
                       std::filesystem::path(study.value("base_case", "")).filename().string(),
                       study.value("gpufem_version", ""), study.value("updated", ""), study.value("device", ""),
                       study.value("copy_bandwidth_GBps", 0.0), metric.name, metric.unit, metric.summary,
                       study["points"].size(), counts[point_done], counts[point_not_converged], counts[point_skipped],
                       counts[point_failed], study.value("complete", false) ? "" : "; **incomplete**: run the study again to resume");
}

}  // namespace

std::string study_markdown(const nlohmann::json& study, const std::vector<std::string>& plots, const std::string& plots_note)
{
    const StudyMetric& metric = study_metrics().at(study["metric"]["name"].get<std::string>());
    std::string out = header_section(study, metric);
    for (const std::string& plot : plots) out += "![" + plot + "](" + plot + ")\n\n";
    if (!plots_note.empty()) out += "Plots: " + plots_note + "\n\n";
    out += fastest_section(study, metric) + "\n";
    const std::string paper = paper_section(study);
    if (!paper.empty()) out += paper + "\n";
    return out + points_section(study, metric);
}

void write_study_outputs(const std::filesystem::path& folder, const nlohmann::json& study, bool draw_plots, bool required)
{
    std::string note = "not drawn (--no-plots); `gpufem report " + folder.filename().string() + "` draws them";
    if (draw_plots) {
        const std::filesystem::path staging = folder / ".plots-staging";
        try {
            run_plot_script("study", folder, staging);
            for (const std::string& png : png_files(staging)) std::filesystem::rename(staging / png, folder / png);
            note.clear();
        } catch (const std::exception& e) {
            std::filesystem::remove_all(staging);
            if (required) throw;
            note = std::string(e.what()) + "; `gpufem report` on this folder draws them later";
            std::cerr << "gpufem: warning: " << note << "\n";
        }
        std::filesystem::remove_all(staging);
    }
    StagedOutputs out(folder);
    out.write_text("study.md", study_markdown(study, png_files(folder), note));
    out.commit();
}

}  // namespace gpufem
