#include "solver/study/study_runner.hpp"

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "mesh/gmsh_session.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/build_info.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/run_case.hpp"
#include "solver/study/study_output.hpp"
#include "solver/study/study_state.hpp"

namespace gpufem {
namespace {

/// Whether the message names (as --set names it) a key that this point's value of axis a sets.
bool names_axis_key(const StudySpec& spec, const StudyPoint& point, std::size_t a, const std::string& message)
{
    for (const StudyAxisValue& value : spec.axes[a].values) {
        if (value.label != point.labels[a]) continue;
        for (const std::string& text : value.overrides)
            if (message.find("--set " + text.substr(0, text.find('=')) + "=") != std::string::npos) return true;
    }
    return false;
}

/// A point's case error located in the study: the file, and the line of the axis whose key the
/// message names.
std::string locate_point_error(const StudySpec& spec, const StudyPoint& point, const std::string& message)
{
    std::string where = spec.file.string();
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
        if (names_axis_key(spec, point, a, message)) {
            where += ":" + std::to_string(spec.axes[a].line) + ": axes." + spec.axes[a].name;
            break;
        }
    return where + ": point " + point.folder + ": " + message;
}

/// Every point's case, read and checked before anything runs.
std::vector<CaseSpec> point_cases(const StudySpec& spec, const std::vector<StudyPoint>& points,
                                  const std::string& backend)
{
    std::vector<CaseSpec> cases;
    for (const StudyPoint& point : points) {
        try {
            CaseSpec one = parse_case_file(spec.base_case, point.overrides);
            if (!backend.empty()) set_backend(one, parse_enum(backend_choice_names, backend, "backend"));
            if (is_sweep(one))
                throw CaseError("the base case lists several degrees, refinements or kappas: make them axes of the study");
            cases.push_back(std::move(one));
        } catch (const CaseError& e) {
            throw CaseError(locate_point_error(spec, point, e.what()));
        }
    }
    return cases;
}

/// The names of the metrics the study shows besides its own.
std::vector<std::string> also_names(const StudySpec& spec)
{
    std::vector<std::string> names;
    for (const StudyMetric* metric : spec.also) names.push_back(metric->name);
    return names;
}

/// study.json's header: the study, the device and its copy bandwidth, the axes.
nlohmann::json study_header(const StudySpec& spec, const std::string& device, double copy_bandwidth)
{
    nlohmann::json axes = nlohmann::json::array();
    for (const StudyAxis& axis : spec.axes) {
        nlohmann::json labels = nlohmann::json::array();
        for (const StudyAxisValue& value : axis.values) labels.push_back(value.label);
        axes.push_back({{"name", axis.name}, {"labels", labels}, {"chosen", is_choice_axis(spec, axis.name)}});
    }
    const StudyMetric& m = *spec.metric;
    return {{"gpufem_version", gpufem_version()}, {"study", spec.name}, {"title", spec.title},
            {"study_file", spec.file.string()}, {"base_case", spec.base_case.string()},
            {"device", device}, {"copy_bandwidth_GBps", copy_bandwidth * 1e-9}, {"axes", axes},
            {"choose", spec.choose}, {"x", spec.x}, {"also", also_names(spec)},
            {"metric", {{"name", m.name}, {"unit", m.unit}, {"summary", m.summary}, {"higher_is_better", m.higher_is_better}}},
            {"paper", paper_json(spec.paper)}, {"points", nlohmann::json::array()}, {"started", utc_now()}};
}

/// Writes study.json and study.csv together (staged, renamed into place).
void write_study_record(const std::filesystem::path& folder, nlohmann::json& study)
{
    study["updated"] = utc_now();
    StagedOutputs out(folder);
    out.write_text(study_json_file, study.dump(2) + "\n");
    out.write_text("study.csv", study_csv(study));
    out.commit();
}

}  // namespace

namespace {

/// A point's row before it runs: its index, labels, keys and folder.
nlohmann::json point_row(const StudySpec& spec, const StudyPoint& point)
{
    nlohmann::json labels = nlohmann::json::object();
    for (std::size_t a = 0; a < spec.axes.size(); ++a) labels[spec.axes[a].name] = point.labels[a];
    return {{"index", point.index}, {"labels", labels}, {"overrides", point.overrides},
            {"key", point_key(point)}, {"folder", "points/" + point.folder}};
}

/// What a finished run adds to its row: status, sizes, the format as used and every metric.
void add_record(nlohmann::json& row, const CaseSpec& one, const RunRecord& r, double copy_bandwidth)
{
    row["status"] = r.solve.converged() ? point_done : point_not_converged;
    row["solver_status"] = solve_status_name(r.solve.status);
    row["unknowns"] = r.rows;
    row["nnz"] = r.nnz;
    row["nnz_per_row"] = r.row_stats.mean;
    row["iterations"] = r.solve.iterations;
    row["format"] = r.format;
    row["format_parameters"] = r.format_parameters;
    row["precision"] = r.precision;
    row["bytes_stored"] = r.bytes_stored;
    row["spmv_min_bytes"] = r.spmv_min_bytes;
    nlohmann::json metrics = nlohmann::json::object();
    for (const StudyMetric& metric : study_metrics().entries()) metrics[metric.name] = metric.value(one, r, copy_bandwidth);
    row["metrics"] = metrics;
}

/// Why the point does not fit (check_csr_limit, check_memory_fits), or "" when it does.
std::string does_not_fit(const CaseSpec& one, const ExecPtr& exec)
{
    try {
        const MemoryEstimate estimate = estimate_case_memory(one, exec);
        check_csr_limit(estimate);
        check_memory_fits(estimate, *exec);
    } catch (const MeshTooLargeError& e) {
        return e.what();
    } catch (const std::runtime_error& e) {
        if (dynamic_cast<const MeshSourceError*>(&e) || dynamic_cast<const CaseError*>(&e)) throw;
        return e.what();
    }
    return "";
}

/// Runs one point into folder/points/<point>/ and returns its row (skipped, failed or run).
nlohmann::json run_point(const StudySpec& spec, const StudyPoint& point, const CaseSpec& one,
                         const std::filesystem::path& folder, const StudyOptions& options, double copy_bandwidth)
{
    nlohmann::json row = point_row(spec, point);
    const auto started = std::chrono::steady_clock::now();
    try {
        const std::string refusal = options.check_memory ? does_not_fit(one, make_executor(one.backend)) : "";
        if (!refusal.empty()) {
            row["status"] = point_skipped;
            row["reason"] = "does not fit: " + refusal;
            return row;
        }
        RunOptions run;
        run.output_dir = folder / "points" / point.folder;
        run.check_memory = options.check_memory;
        run.started = started;
        add_record(row, one, run_case(one, run), copy_bandwidth);
    } catch (const std::exception& e) {
        row["status"] = point_failed;
        row["reason"] = e.what();
    }
    row["run_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    row["finished_at"] = utc_now();
    return row;
}

/// The line printed after each point.
std::string point_line(const StudySpec& spec, const nlohmann::json& row, std::size_t count, bool earlier)
{
    std::string line = fmt::format("[{}/{}] {}: {}", row["index"].get<int>() + 1, count,
                                   row["folder"].get<std::string>(), row["status"].get<std::string>());
    if (row.contains("metrics"))
        line += fmt::format(", {} {:.4g} {}", spec.metric->name, row["metrics"].value(spec.metric->name, 0.0),
                            spec.metric->unit);
    if (row.contains("reason")) line += " (" + row["reason"].get<std::string>() + ")";
    return line + (earlier ? " [finished earlier]" : "");
}

}  // namespace

std::filesystem::path study_folder(const StudySpec& spec, const StudyOptions& options)
{
    return options.output_dir.empty() ? spec.file.parent_path() / spec.name : options.output_dir;
}

nlohmann::json run_study(const StudySpec& spec, const StudyOptions& options)
{
    const std::vector<StudyPoint> points = expand_study(spec);
    const std::vector<CaseSpec> cases = point_cases(spec, points, options.backend);
    const std::filesystem::path folder = study_folder(spec, options);
    const std::string fingerprint = base_case_fingerprint(spec.base_case, options.backend);
    const std::map<std::string, nlohmann::json> earlier = finished_rows(folder, fingerprint);
    const ExecPtr exec = make_executor(cases.front().backend);
    const double copy_bandwidth = measure_copy_bandwidth(exec);
    nlohmann::json study = study_header(spec, exec->device_name(), copy_bandwidth);
    study["base_case_fingerprint"] = fingerprint;
    std::cout << fmt::format("gpufem study: {} ({} points, {}, copy {:.1f} GB/s)\n", spec.name, points.size(),
                             exec->device_name(), copy_bandwidth * 1e-9);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto found = earlier.find(point_key(points[i]));
        const bool reused = found != earlier.end();
        nlohmann::json row = reused ? found->second : run_point(spec, points[i], cases[i], folder, options, copy_bandwidth);
        row["index"] = points[i].index;
        study["points"].push_back(std::move(row));
        std::cout << point_line(spec, study["points"].back(), points.size(), reused) << std::endl;
        write_study_record(folder, study);
    }
    study["complete"] = true;
    write_study_record(folder, study);
    write_study_outputs(folder, study, options.plots);
    return study;
}

}  // namespace gpufem
