#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "solver/build_info.hpp"
#include "solver/report/run_record.hpp"

namespace gpufem {

double RunRecord::median_spmv_seconds() const
{
    if (spmv_seconds.empty()) return 0.0;
    std::vector<double> sorted(spmv_seconds);
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    return sorted[sorted.size() / 2];
}

double RunRecord::seconds_per_iteration() const
{
    return solve.iterations > 0 ? (time_solve - time_preconditioner_setup) / solve.iterations : 0.0;
}

namespace {

using nlohmann::json;

/// report.json's mesh, unknowns, discretisation and matrix.
void report_mesh_and_matrix(const RunRecord& r, json& report)
{
    report["mesh"] = {{"source", r.mesh_source}, {"dim", r.dim},       {"cell_type", r.cell_type},
                      {"nodes", r.nodes},        {"cells", r.cells},   {"boundary_groups", r.boundary_groups},
                      {"reused", r.mesh_reused}, {"cache", r.mesh_cache}};
    report["unknowns"] = {{"count", r.rows}, {"on", r.unknowns_on}};
    if (!r.discretisation.is_null()) report["discretisation"] = r.discretisation;
    report["matrix"] = {
        {"rows", r.rows},
        {"nnz", r.nnz},
        {"nnz_per_row", {{"min", r.row_stats.min}, {"mean", r.row_stats.mean}, {"max", r.row_stats.max}}},
        {"bytes_stored", r.bytes_stored},
        {"spmv_min_bytes", r.spmv_min_bytes},
        {"dirichlet_rows", r.dirichlet_rows}};
    if (r.nnz > 0) report["matrix"]["row_offset_bits"] = r.wide_offsets ? 64 : 32;  // an assembled matrix's
}

/// report.json's times of every phase.
void report_times(const RunRecord& r, json& report)
{
    const double total = r.time_read + r.time_mesh + r.time_assembly.total() + r.time_format_choice +
                         r.time_operator + r.time_solve + r.time_errors + r.time_output + r.time_export;
    report["times"] = {{"read", r.time_read},
                       {"mesh", r.time_mesh},
                       {"mesh_gmsh", r.time_mesh_parts.gmsh},
                       {"mesh_gpufem", r.time_mesh_parts.gpufem},
                       {"mesh_refinement", r.time_mesh_parts.refinement},
                       {"mesh_host_copy", r.time_mesh_parts.host_copy},
                       {"assembly",
                        {{"total", r.time_assembly.total()},
                         {"geometry", r.time_assembly.geometry},
                         {"coefficients", r.time_assembly.coefficients},
                         {"pattern", r.time_assembly.pattern},
                         {"values", r.time_assembly.values},
                         {"boundary", r.time_assembly.boundary}}},
                       {"format_choice", r.time_format_choice},
                       {"format_conversion", r.time_operator},
                       {"reorder", r.time_reorder},
                       {"solve", r.time_solve},
                       {"preconditioner_setup", r.time_preconditioner_setup},
                       {"errors", r.time_errors},
                       {"output", r.time_output},
                       {"export", r.time_export},
                       {"total", total},
                       {"startup", r.time_startup},
                       {"wall", r.time_wall}};
}

/// report.json's output: the solution file written.
void report_output(const CaseSpec& spec, const RunRecord& r, json& report)
{
    if (spec.matrix)  // an external system's solution is a Matrix Market vector
        report["output"] = {{"solution_mtx", spec.output.write_solution}, {"solution_mtx_bytes", r.solution_file_bytes}};
    else
        report["output"] = {{"result_vtu", spec.output.write_solution},
                            {"compression", enum_name(vtu_compression_names, spec.output.compression)},
                            {"result_vtu_bytes", r.solution_file_bytes}};
}

/// report.json's solver: its settings, status, residuals and history.
void report_solver(const CaseSpec& spec, const RunRecord& r, json& report)
{
    report["solver"] = {{"method", method_name(spec.solver.method)},
                        {"variant", variant_name(spec.solver.variant)},
                        {"preconditioner", spec.solver.preconditioner->name},
                        {"tolerance", spec.solver.tolerance},
                        {"max_iterations", spec.solver.max_iterations},
                        {"status", solve_status_name(r.solve.status)},
                        {"converged", r.solve.converged()},
                        {"message", r.solve.message},
                        {"iterations", r.solve.iterations},
                        {"pass_iterations", r.pass_iterations},
                        {"correction_change", r.correction_change},
                        {"correction", r.correction.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.correction)},
                        {"initial_residual", r.solve.initial_residual},
                        {"rhs_norm", r.solve.rhs_norm},
                        {"final_relative_residual", r.solve.relative_residual},
                        {"true_relative_residual", r.solve.true_relative_residual >= 0
                                                       ? nlohmann::json(r.solve.true_relative_residual)
                                                       : nlohmann::json(nullptr)},
                        {"true_relative_residual_double", r.true_relative_residual_double >= 0
                                                              ? nlohmann::json(r.true_relative_residual_double)
                                                              : nlohmann::json(nullptr)},
                        {"seconds_per_iteration", r.seconds_per_iteration()},
                        {"cuda_graph", r.solve.graph_used},
                        {"fused_dot", r.solve.fused_dot},
                        {"fused_direction", r.solve.fused_direction},
                        {"resident_cg", r.solve.resident},
                        {"host_reads", r.solve.host_reads},
                        {"residual_history", r.solve.residual_history},
                        {"preconditioner_details", r.preconditioner.is_null()
                                                       ? nlohmann::json::object()
                                                       : r.preconditioner}};
}

/// report.json's errors (none without an exact solution or a reference).
void report_errors(const CaseSpec& spec, const RunRecord& r, json& report)
{
    if (!r.errors) return;
    // A matrix case's error is against the vector of ones: discrete norms, no H1; finite
    // volumes' at the cell centroids: no H1 either.
    const bool discrete = spec.matrix || r.unknowns_on == "cells";
    report["errors"] = {{"l2", r.errors->l2},
                        {"h1_semi", discrete ? nlohmann::json(nullptr) : nlohmann::json(r.errors->h1_semi)},
                        {"max_nodal", r.errors->max_nodal},
                        {"relative_l2", r.errors->l2_exact > 0 ? r.errors->l2 / r.errors->l2_exact : 0.0}};
    if (spec.matrix) report["errors"]["against"] = "the vector of ones (b = A 1): discrete 2-norm and max";
    if (r.unknowns_on == "cells")
        report["errors"]["against"] = "u(x_c) at the cell centroids: l2 = sqrt(sum V_c (u_c - u(x_c))^2), max over cells";
}

}  // namespace

nlohmann::json make_report(const CaseSpec& spec, const RunRecord& r)
{
    const double median = r.median_spmv_seconds();
    json report;
    report["gpufem_version"] = gpufem_version();
    report["case_file"] = spec.case_path.string();
    report["case"] = spec.resolved;
    report["backend"] = r.backend;
    report["device"] = r.device;
    report["precision"] = r.precision;
    report["format"] = r.format;
    report["format_parameters"] = r.format_parameters;
    report["format_host_steps"] = r.format_host_steps;
    report["reorder"] = r.reorder;
    if (!r.format_choice.is_null()) report["format_choice"] = r.format_choice;
    report_mesh_and_matrix(r, report);
    report_times(r, report);
    report_output(spec, r, report);
    report_solver(spec, r, report);
    report["spmv"] = {{"clock", r.spmv_clock},
                      {"count", r.spmv_seconds.size()},
                      {"median_seconds", median},
                      {"effective_GBps", median > 0 ? r.spmv_min_bytes / median * 1e-9 : 0.0},
                      {"GFLOPs", median > 0 ? 2.0 * r.nnz / median * 1e-9 : 0.0}};
    if (r.memory_estimate) report["memory"] = memory_report(*r.memory_estimate, r.memory_measured);
    report_errors(spec, r, report);
    if (r.fluxes) report["fluxes"] = r.fluxes->to_json();
    return report;
}

std::string make_spmv_csv(const RunRecord& r)
{
    // BiCGSTAB applies the operator twice per iteration: spmv counts them within the iteration.
    const std::size_t per_iteration = static_cast<std::size_t>(std::max(1, r.spmvs_per_iteration));
    std::string csv = "iteration,spmv,format,seconds\n";
    for (std::size_t i = 0; i < r.spmv_seconds.size(); ++i)
        csv += fmt::format("{},{},{},{:.9e}\n", i / per_iteration + 1, i % per_iteration + 1,
                           r.format, r.spmv_seconds[i]);
    return csv;
}

namespace {

/// Appends one "  key   value" line of the summary.
void summary_row(std::string& s, const std::string& key, const std::string& value)
{
    s += fmt::format("  {:<24} {}\n", key, value);
}

/// "dirichlet: left, bottom; neumann: top; robin: wall (h 25, u_inf 293)": the problem's
/// boundary conditions by kind, or "" without any.
std::string conditions_text(const ProblemSpec& problem)
{
    std::string text;
    const auto add = [&](const char* kind, const std::vector<std::string>& items) {
        if (items.empty()) return;
        text += fmt::format("{}{}: {}", text.empty() ? "" : "; ", kind, fmt::join(items, ", "));
    };
    std::vector<std::string> items;
    for (const BoundaryCondition& c : problem.dirichlet) items.push_back(c.group);
    add("dirichlet", items);
    items.clear();
    for (const BoundaryCondition& c : problem.neumann) items.push_back(c.group);
    add("neumann", items);
    items.clear();
    for (const RobinCondition& c : problem.robin) items.push_back(fmt::format("{} (h {}, u_inf {})", c.group, c.h, c.u_inf));
    add("robin", items);
    return text;
}

/// The summary's run, system and time lines up to the solve.
void summarise_setup(const CaseSpec& spec, const RunRecord& r, std::string& s)
{
    summary_row(s, "backend / device", fmt::format("{} / {}", r.backend, r.device));
    summary_row(s, "precision / format", fmt::format("{} / {}{}", r.precision, r.format,
                                          r.format_parameters.empty() ? "" : " (" + r.format_parameters + ")"));
    if (spec.matrix)
        summary_row(s, "system", fmt::format("{}, read in {:.4f} s", r.mesh_source, r.time_read));
    else
        summary_row(s, "mesh", fmt::format("{} cells ({}), {} nodes, from {}", r.cells, r.cell_type, r.nodes, r.mesh_source));
    if (const std::string conditions = conditions_text(spec.problem); !spec.matrix && !conditions.empty())
        summary_row(s, "boundary conditions", conditions);
    summary_row(s, "unknowns / nnz", fmt::format("{} / {} (per row {} / {:.1f} / {})", r.rows, r.nnz,
                                      r.row_stats.min, r.row_stats.mean, r.row_stats.max));
    if (!r.format_choice.is_null())
        summary_row(s, "format auto", fmt::format("chose {} in {:.4f} s (report.json format_choice)", r.format,
                                       r.time_format_choice));
    if (r.time_reorder > 0) summary_row(s, "reorder", fmt::format("{} in {:.4f} s", r.reorder, r.time_reorder));
    if (!spec.matrix)
        summary_row(s, "mesh time", r.time_mesh_parts.gmsh > 0
                             ? fmt::format("{:.4f} s (Gmsh {:.4f} s, extraction {:.4f} s, refinement and "
                                           "numbering {:.4f} s)", r.time_mesh, r.time_mesh_parts.gmsh,
                                           r.time_mesh_parts.gpufem, r.time_mesh_parts.refinement)
                             : fmt::format("{:.4f} s ({})", r.time_mesh,
                                           r.mesh_cache == "hit" ? "Gmsh's mesh from the cache" : "generated by gpufem"));
    if (spec.matrix)
        summary_row(s, "upload time", fmt::format("{:.4f} s", r.time_assembly.total()));
    else
        summary_row(s, "assembly time", fmt::format("{:.4f} s (geometry {:.4f}, coefficients {:.4f}, pattern {:.4f}, values {:.4f}, boundary {:.4f})",
                                     r.time_assembly.total(), r.time_assembly.geometry,
                                     r.time_assembly.coefficients,
                                     r.time_assembly.pattern, r.time_assembly.values,
                                     r.time_assembly.boundary));
}

/// The summary's solver, solve and SpMV lines.
void summarise_solve(const CaseSpec& spec, const RunRecord& r, std::string& s)
{
    const double median = r.median_spmv_seconds();
    summary_row(s, "solver", fmt::format("{} {} (preconditioner {}{})", method_name(spec.solver.method),
                              variant_name(spec.solver.variant),
                              spec.solver.preconditioner->name,
                              r.solve.graph_used ? ", CUDA graph" : ""));
    summary_row(s, "solve time", fmt::format("{:.4f} s, {} iterations, {:.3e} s/iteration", r.time_solve,
                                  r.solve.iterations, r.seconds_per_iteration()));
    summary_row(s, "solver status",
        r.solve.true_relative_residual >= 0
            ? fmt::format("{} (relative residual {:.3e} recursive, {:.3e} true{})",
                          solve_status_name(r.solve.status), r.solve.relative_residual,
                          r.solve.true_relative_residual,
                          r.true_relative_residual_double >= 0
                              ? fmt::format(", {:.3e} true against the double system",
                                            r.true_relative_residual_double)
                              : "")
            : fmt::format("{} (relative residual {:.3e})", solve_status_name(r.solve.status),
                          r.solve.relative_residual));
    if (median > 0)
        summary_row(s, "SpMV (median)", fmt::format("{:.3e} s, {:.1f} GB/s effective, {:.2f} GFLOP/s",
                                         median, r.spmv_min_bytes / median * 1e-9,
                                         2.0 * r.nnz / median * 1e-9));
}

/// The summary's error lines (a matrix case's against 1, finite volumes' at the centroids).
void summarise_errors(const CaseSpec& spec, const RunRecord& r, std::string& s)
{
    if (!r.errors) return;
    if (spec.matrix)
        summary_row(s, "error against 1", fmt::format("||u - 1||_2 {:.4e} (relative {:.4e}), max |u_i - 1| {:.4e}",
                                           r.errors->l2, r.errors->l2 / r.errors->l2_exact, r.errors->max_nodal));
    else if (r.unknowns_on == "cells")
        summary_row(s, "error", fmt::format("cell-centred L2 {:.4e}, max over centroids {:.4e}", r.errors->l2,
                                 r.errors->max_nodal));
    else
        summary_row(s, "error", fmt::format("L2 {:.4e}, H1-semi {:.4e}, max nodal {:.4e}", r.errors->l2,
                                 r.errors->h1_semi, r.errors->max_nodal));
    summary_row(s, "error time", fmt::format("{:.4f} s", r.time_errors));
}

}  // namespace

std::string make_summary(const CaseSpec& spec, const RunRecord& r)
{
    std::string s = fmt::format("gpufem summary: {}\n", spec.name);
    summarise_setup(spec, r, s);
    summarise_solve(spec, r, s);
    summarise_errors(spec, r, s);
    if (r.fluxes)
        for (const auto& [key, text] : r.fluxes->summary()) summary_row(s, key, text);
    summary_row(s, "output time", fmt::format("{:.4f} s", r.time_output));
    return s;
}

}  // namespace gpufem
