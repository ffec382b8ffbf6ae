#include "solver/run/run_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/host_memory.hpp"
#include "solver/run/memory_estimate.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/pipeline.hpp"

namespace gpufem {
namespace {

/// text inside a CSV field's double quotes (each quote doubled).
std::string csv_quoted(const std::string& text)
{
    std::string out;
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out;
}

/// Whether the record has an H1 error (finite volumes' cell-centred errors have none).
bool has_h1(const RunRecord& rec) { return rec.errors && std::isfinite(rec.errors->h1_semi); }

/// The row of the same degree and kappa before rows[k] (the previous refinement level), or null.
const SweepRow* previous_refinement(const std::vector<SweepRow>& rows, std::size_t k)
{
    for (std::size_t j = k; j-- > 0;)
        if (rows[j].degree == rows[k].degree && rows[j].kappa_index == rows[k].kappa_index) return &rows[j];
    return nullptr;
}

/// Convergence rates against the previous refinement level of the same degree and kappa.
void fill_rates(std::vector<SweepRow>& rows)
{
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const SweepRow* previous = previous_refinement(rows, k);
        SweepRow& row = rows[k];
        if (!previous || !previous->record.errors || !row.record.errors) continue;
        const SweepRow& prev = *previous;
        const double halvings = (row.refine - prev.refine) * std::log(2.0);
        if (halvings <= 0) continue;
        row.l2_rate = std::log(prev.record.errors->l2 / row.record.errors->l2) / halvings;
        if (has_h1(prev.record) && has_h1(row.record))
            row.h1_rate = std::log(prev.record.errors->h1_semi / row.record.errors->h1_semi) / halvings;
    }
}

std::string pvd(const std::vector<SweepRow>& rows, const std::string& result_file)
{
    std::string text = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
    for (std::size_t i = 0; i < rows.size(); ++i)
        text += fmt::format("    <DataSet timestep=\"{}\" group=\"degree {} refine {}{}\" part=\"0\" file=\"{}/{}\"/>\n",
                            i, rows[i].degree, rows[i].refine,
                            rows[i].kappas ? fmt::format(" kappa {}", rows[i].kappa_index) : "",
                            sweep_point_folder(rows[i]), result_file);
    return text + "  </Collection>\n</VTKFile>\n";
}

/// How the point's preconditioner came to be: "set up", "updated" (a coefficient sweep's kept
/// hierarchy), or "" without one.
std::string preconditioner_origin(const RunRecord& rec)
{
    if (!rec.preconditioner.is_object() || !rec.preconditioner.contains("setup_seconds")) return "";
    return rec.preconditioner.value("hierarchy", "") == "updated" ? "updated" : "set up";
}

}  // namespace

std::string sweep_point_folder(const SweepRow& row)
{
    return fmt::format("d{}_r{}", row.degree, row.refine) + (row.kappas ? fmt::format("_k{}", row.kappa_index) : "");
}

std::string sweep_table(const std::vector<SweepRow>& rows)
{
    const bool kappas = !rows.empty() && rows.front().kappas;
    std::string t = fmt::format("{:>6} {:>6} {}{:>9} {:>10} {:>11} {:>7} {:>6} {:>9} {:>9} {:>10} {:>10} {:>11} {:>5} {:>11} {:>5}\n",
                                "degree", "refine", kappas ? fmt::format("{:>5} ", "kappa") : "", "cells",
                                "unknowns", "nnz", "nnz/row", "iters", "assembly", "setup s", "solve s",
                                "CG it/s", "L2 error", "rate", "H1 error", "rate");
    for (const SweepRow& r : rows) {
        const RunRecord& rec = r.record;
        const double its = rec.time_solve > 0 ? rec.solve.iterations / rec.time_solve : 0.0;
        const std::string origin = preconditioner_origin(rec);
        t += fmt::format("{:>6} {:>6} {}{:>9} {:>10} {:>11} {:>7.1f} {:>6} {:>9.4f} {:>9} {:>9.4f} {:>10.0f} {:>11} {:>5} {:>11} {:>5}\n",
                         r.degree, r.refine, kappas ? fmt::format("{:>5} ", fmt::format("k{}", r.kappa_index)) : "",
                         rec.cells, rec.rows, rec.nnz, rec.row_stats.mean,
                         rec.solve.iterations, rec.time_assembly.total(),
                         origin.empty() ? "-" : fmt::format("{:.4f}{}", rec.time_preconditioner_setup, origin == "updated" ? "u" : ""),
                         rec.time_solve, its,
                         rec.errors ? fmt::format("{:.3e}", rec.errors->l2) : "-",
                         r.l2_rate ? fmt::format("{:.2f}", r.l2_rate) : "-",
                         has_h1(rec) ? fmt::format("{:.3e}", rec.errors->h1_semi) : "-",
                         r.h1_rate ? fmt::format("{:.2f}", r.h1_rate) : "-");
    }
    if (kappas) {
        std::vector<std::pair<int, std::string>> listed;
        for (const SweepRow& r : rows)
            if (std::find(listed.begin(), listed.end(), std::pair{r.kappa_index, r.kappa}) == listed.end())
                listed.emplace_back(r.kappa_index, r.kappa);
        for (const auto& [index, kappa] : listed) t += fmt::format("  k{}: kappa = {}\n", index, kappa);
    }
    if (std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return preconditioner_origin(r.record) == "updated"; }))
        t += "  setup s: the preconditioner's setup, or with u its update (the hierarchy of the mesh's first kappa, "
             "new values)\n";
    return t;
}

namespace {

/// Writes DIR/sweep_incomplete.json when a sweep point fails: the points that completed (their
/// folders are kept: each is a whole, valid run), the one that failed and why. No sweep table,
/// collection or report is written for an incomplete sweep.
void mark_incomplete(const CaseSpec& spec, const RunOptions& options,
                     const std::vector<SweepRow>& done, const SweepRow& failed,
                     const std::string& error)
{
    if (!options.write_outputs) return;
    nlohmann::json completed = nlohmann::json::array();
    for (const SweepRow& r : done) completed.push_back(sweep_point_folder(r));
    StagedOutputs outputs(output_folder(spec, options));
    outputs.write_text(sweep_incomplete_file,
                       nlohmann::json{{"case_file", spec.case_path.string()},
                                      {"completed", completed},
                                      {"failed", {{"degree", failed.degree},
                                                  {"refine", failed.refine},
                                                  {"kappa", failed.kappa},
                                                  {"folder", sweep_point_folder(failed)},
                                                  {"error", error}}}}
                               .dump(2) +
                           "\n");
    outputs.commit();
    spdlog::error("sweep point {} failed; {} completed point(s) kept, listed in {}",
                  sweep_point_folder(failed), done.size(),
                  (output_folder(spec, options) / sweep_incomplete_file).string());
}

/// Every point of the sweep whose size is known before it runs (generated shapes) must stay
/// within CSR's limit and (check_memory) fit the free memory and the mesh size guard: checked
/// before the first point runs, so that a sweep does not stop at its largest point after the
/// others ran. Throws naming the point. (Without check_memory a point the size guard refuses
/// fails when it runs, as --no-memory-check lets a run try.)
void check_sweep_memory(const std::vector<CaseSpec>& points, bool check_memory)
{
    const ExecPtr exec = make_executor(points.front().backend);
    const double baseline_host = static_cast<double>(resident_host_bytes());
    for (const CaseSpec& point : points) {
        try {
            std::optional<MeshCounts> counts;
            try {
                counts = predicted_mesh_counts(point.mesh);  // the size guard too
            } catch (const std::runtime_error&) {
                if (check_memory) throw;
                continue;
            }
            if (!counts) continue;
            const MemoryEstimate estimate = estimate_memory(point, *counts, *exec, baseline_host);
            check_csr_limit(estimate);  // a limit of the format: checked even without the memory check
            if (check_memory) check_memory_fits(estimate, *exec);
        } catch (const std::runtime_error& e) {
            throw std::runtime_error(fmt::format("sweep point degree {}, refine {}{} (nothing run): {}",
                                                 point.mesh.degree, point.mesh.refine,
                                                 points.front().kappa_index != points.back().kappa_index
                                                     ? fmt::format(", kappa {}", point.problem.kappa)
                                                     : "",
                                                 e.what()));
        }
    }
}

/// The sweep's row of point run (its record not yet filled).
SweepRow sweep_row(const CaseSpec& run, bool kappas)
{
    SweepRow row;
    row.degree = run.mesh.degree;
    row.refine = run.mesh.refine;
    row.kappa_index = run.kappa_index;
    row.kappa = run.problem.kappa;
    row.kappas = kappas;
    return row;
}

/// Runs every point in order, each into its own folder; the points of one mesh and degree
/// (consecutive: kappa is the innermost axis) share it. A failed point marks the sweep
/// incomplete and rethrows.
std::vector<SweepRow> run_points(const CaseSpec& spec, const std::vector<CaseSpec>& points, const RunOptions& options,
                                 const SweepRunner& runner)
{
    const auto folder = output_folder(spec, options);
    std::vector<SweepRow> rows;
    const bool kappas = spec.kappas.size() > 1;
    SweepReuse reuse;
    for (const CaseSpec& run : points) {
        SweepRow row = sweep_row(run, kappas);
        if (!rows.empty() && (rows.back().degree != row.degree || rows.back().refine != row.refine))
            reuse = SweepReuse{};  // another mesh: the last one's arrays go before it is made
        spdlog::info("sweep: degree {}, refine {}{}", run.mesh.degree, run.mesh.refine,
                     kappas ? fmt::format(", kappa k{} = {}", row.kappa_index, row.kappa) : "");
        RunOptions run_options = options;
        run_options.output_dir = folder / sweep_point_folder(row);
        // A point's startup and wall count from its own start (the first point's from the
        // program's), not the earlier points' time.
        if (!rows.empty()) run_options.started = std::chrono::steady_clock::now();
        try {
            row.record = runner.run(run, run_options, kappas && runner.shares ? &reuse : nullptr);
        } catch (const std::exception& e) {
            mark_incomplete(spec, options, rows, row, e.what());
            throw;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

/// One point in report.json's sweep table.
nlohmann::json sweep_point_json(const SweepRow& r)
{
    const RunRecord& rec = r.record;
    const double its = rec.time_solve > 0 ? rec.solve.iterations / rec.time_solve : 0.0;
    return {{"degree", r.degree},
            {"refine", r.refine},
            {"kappa", r.kappa},
            {"folder", sweep_point_folder(r)},
            {"mesh_reused", rec.mesh_reused},
            {"preconditioner_setup_seconds", rec.time_preconditioner_setup},
            {"preconditioner", preconditioner_origin(rec)},
            {"cells", rec.cells},
            {"unknowns", rec.rows},
            {"nnz", rec.nnz},
            {"nnz_per_row", rec.row_stats.mean},
            {"iterations", rec.solve.iterations},
            {"converged", rec.solve.converged()},
            {"assembly_seconds", rec.time_assembly.total()},
            {"solve_seconds", rec.time_solve},
            {"cg_iterations_per_second", its},
            {"l2_error", rec.errors ? nlohmann::json(rec.errors->l2) : nlohmann::json(nullptr)},
            {"l2_rate", r.l2_rate},
            {"h1_error", has_h1(rec) ? nlohmann::json(rec.errors->h1_semi) : nlohmann::json(nullptr)},
            {"h1_rate", r.h1_rate}};
}

/// sweep.csv: its header and one line per point.
std::string sweep_csv(const std::vector<SweepRow>& rows)
{
    std::string csv = "degree,refine,kappa,cells,unknowns,nnz,nnz_per_row,iterations,converged,assembly_s,"
                      "preconditioner_setup_s,preconditioner,solve_s,cg_iterations_per_s,l2_error,l2_rate,h1_error,h1_rate\n";
    for (const SweepRow& r : rows) {
        const RunRecord& rec = r.record;
        const double its = rec.time_solve > 0 ? rec.solve.iterations / rec.time_solve : 0.0;
        csv += fmt::format("{},{},\"{}\",{},{},{},{:.2f},{},{},{:.6e},{:.6e},{},{:.6e},{:.1f},{},{:.3f},{},{:.3f}\n",
                           r.degree, r.refine, csv_quoted(r.kappa), rec.cells, rec.rows, rec.nnz,
                           rec.row_stats.mean, rec.solve.iterations, rec.solve.converged(),
                           rec.time_assembly.total(), rec.time_preconditioner_setup, preconditioner_origin(rec),
                           rec.time_solve, its,
                           rec.errors ? fmt::format("{:.6e}", rec.errors->l2) : "", r.l2_rate,
                           has_h1(rec) ? fmt::format("{:.6e}", rec.errors->h1_semi) : "", r.h1_rate);
    }
    return csv;
}

/// The sweep's own files: result.pvd, sweep.csv and report.json with every point.
void write_sweep_outputs(const CaseSpec& spec, const std::filesystem::path& folder, const std::vector<SweepRow>& rows,
                         const std::string& result_file)
{
    nlohmann::json table = nlohmann::json::array();
    for (const SweepRow& r : rows) table.push_back(sweep_point_json(r));
    StagedOutputs outputs(folder);
    outputs.write_text("result.pvd", pvd(rows, result_file));
    outputs.write_text("sweep.csv", sweep_csv(rows));
    outputs.write_text("report.json", nlohmann::json{{"case", spec.resolved},
                                                     {"case_file", spec.case_path.string()},
                                                     {"sweep", table}}
                                              .dump(2) +
                                          "\n");
    outputs.commit();
}

}  // namespace

std::vector<SweepRow> run_sweep(const CaseSpec& spec, const RunOptions& options, const SweepRunner& runner)
{
    const auto folder = output_folder(spec, options);
    const std::vector<CaseSpec> points = expand_sweep(spec);
    check_sweep_memory(points, options.check_memory);
    std::vector<SweepRow> rows = run_points(spec, points, options, runner);
    if (options.write_outputs) {
        std::error_code ignored;  // a mark left by an earlier, failed sweep into this folder
        std::filesystem::remove(folder / sweep_incomplete_file, ignored);
    }
    fill_rates(rows);
    if (options.write_outputs) write_sweep_outputs(spec, folder, rows, runner.result_file);
    return rows;
}

}  // namespace gpufem
