#include "solver/report/report_folder.hpp"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "solver/report/plot_script.hpp"
#include "solver/study/study_output.hpp"
#include "solver/study/study_state.hpp"

namespace gpufem {
namespace {

/// A JSON file, or an error naming it.
nlohmann::json read_json(const std::filesystem::path& file)
{
    std::ifstream in(file);
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(file.string() + ": not valid JSON (" + e.what() + ")");
    }
}

/// The error a stopped sweep recorded.
std::string sweep_failure(const std::filesystem::path& file)
{
    const nlohmann::json stopped = read_json(file);
    if (stopped.is_object() && stopped.contains("failed") && stopped["failed"].contains("error"))
        return "point " + stopped["failed"].value("folder", std::string("?")) + ": " +
               stopped["failed"]["error"].get<std::string>();
    return "see " + file.string();
}

/// A run's or a sweep's page: the script draws into a staging folder beside output, which
/// then replaces output whole.
std::filesystem::path write_run_report(const std::filesystem::path& dir, ReportedFolder kind,
                                       const std::filesystem::path& output)
{
    const std::filesystem::path target = output.empty() ? dir / "report" : output;
    const std::filesystem::path staging = target.parent_path() / fmt::format(".{}.staging", target.filename().string());
    try {
        run_plot_script(kind == ReportedFolder::sweep ? "sweep" : "run", dir, staging);
        if (!std::filesystem::is_regular_file(staging / "report.md"))
            throw std::runtime_error("the plotting script wrote no report.md");
        std::filesystem::remove_all(target);
        std::filesystem::rename(staging, target);
    } catch (...) {
        std::filesystem::remove_all(staging);
        throw;
    }
    return target / "report.md";
}

}  // namespace

ReportedFolder reported_kind(const std::filesystem::path& dir)
{
    if (!std::filesystem::is_directory(dir)) throw std::runtime_error(dir.string() + ": no such folder");
    if (std::filesystem::exists(dir / study_json_file)) return ReportedFolder::study;
    if (std::filesystem::exists(dir / "sweep_incomplete.json"))
        throw std::runtime_error(dir.string() + ": the sweep stopped at a failed point, nothing to report: " +
                                 sweep_failure(dir / "sweep_incomplete.json"));
    if (!std::filesystem::exists(dir / "report.json"))
        throw std::runtime_error(dir.string() + ": no report.json: not the output folder of a finished gpufem run, "
                                 "sweep or study (a run that fails writes nothing)");
    const nlohmann::json report = read_json(dir / "report.json");
    if (report.is_object() && report.contains("sweep")) return ReportedFolder::sweep;
    if (report.is_object() && report.contains("solver")) return ReportedFolder::run;
    throw std::runtime_error((dir / "report.json").string() + ": neither a run's nor a sweep's report (no solver, no sweep)");
}

std::filesystem::path write_folder_report(const std::filesystem::path& dir, const std::filesystem::path& output)
{
    const ReportedFolder kind = reported_kind(dir);
    if (kind != ReportedFolder::study) return write_run_report(dir, kind, output);
    nlohmann::json study = read_study_json(dir / study_json_file);
    write_study_outputs(dir, study, true, true);
    return dir / "study.md";
}

}  // namespace gpufem
