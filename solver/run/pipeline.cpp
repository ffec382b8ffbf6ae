#include "solver/run/pipeline.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <memory>
#include <span>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "assembly/operator_levels.hpp"
#include "assembly/fv_discretisation.hpp"
#include "assembly/lagrange_discretisation.hpp"
#include "linalg/blas1.hpp"
#include "linalg/device_runtime.hpp"
#include "linalg/scaled_norms.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "solver/run/fv_correction.hpp"
#include "solver/run/format_choice.hpp"
#include "solver/run/memory_estimate.hpp"
#include "solver/run/mesh_validation.hpp"
#include "solver/run/system_checks.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// ", 4 levels (rows 4173281 / 160000 / ...), operator complexity 1.21" from a preconditioner's
/// report (nothing when it has no levels).
std::string describe_levels(const nlohmann::json& report)
{
    if (!report.contains("levels")) return {};
    std::string rows;
    for (const auto& level : report["levels"])
        rows += (rows.empty() ? "" : " / ") + std::to_string(level["rows"].get<long long>());
    const nlohmann::json& complexity = report["operator_complexity"];
    const std::string origin = report.value("coarse_operators", std::string());
    return fmt::format(", {} levels (rows {}), {}", report["levels"].size(), rows,
                       complexity.is_number() ? fmt::format("operator complexity {:.2f}", complexity.get<double>())
                       : origin == "element galerkin" ? std::string("coarse operators from the element matrices")
                                                      : "coarse operators " + origin);
}

/// What a discretisation's report says the user should know (finite volumes: the mesh's
/// non-orthogonality, a pure-Neumann problem's treatment).
void log_discretisation_report(const nlohmann::json& report)
{
    if (report.is_object() && report.contains("warnings"))
        for (const auto& warning : report["warnings"]) spdlog::warn("{}", warning.get<std::string>());
    if (!report.is_object() || !report.contains("max_nonorthogonality_degrees")) return;
    const double angle = report["max_nonorthogonality_degrees"].get<double>();
    spdlog::info("finite volumes: {} interior and {} boundary faces, non-orthogonality up to {:.1f} degrees",
                 report["interior_faces"].get<long long>(), report["boundary_faces"].get<long long>(), angle);
    if (angle > 5.0 && report["nonorthogonal_correctors"].get<int>() == 0)
        spdlog::warn("finite volumes: the mesh is non-orthogonal (up to {:.1f} degrees) and "
                     "fv.nonorthogonal_correctors is 0: the two-point flux alone is inconsistent "
                     "there (errors stop falling); leave it out (the default corrects)", angle);
    if (report.value("pure_neumann", false))
        spdlog::info("finite volumes: no Dirichlet condition; the data's net source {:.3e} ({:.2g} of "
                     "its size) was removed evenly by volume, u = 0 in cell 0 fixes the constant and "
                     "the solution is shifted to zero mean",
                     report["net_source_removed"].get<double>(), report["net_source_relative"].get<double>());
}

}  // namespace

double smallest_tolerance(Precision precision)
{
    return precision == Precision::float32 ? std::numeric_limits<float>::epsilon()
                                           : std::numeric_limits<double>::epsilon();
}

bool uses_cuda(BackendChoice backend)
{
    return backend != BackendChoice::cpu && Executor::cuda_device_count() > 0;
}

ExecPtr make_executor(BackendChoice backend)
{
    if (uses_cuda(backend)) {
        // A GPU this build has no code for (another architecture): an error for cuda, the CPU
        // with a warning for auto.
        const std::string unusable = cuda::unusable_reason(0);
        if (unusable.empty()) return Executor::create_cuda(0);
        if (backend == BackendChoice::cuda) throw std::runtime_error(unusable);
        spdlog::warn("{}; backend auto runs on the CPU", unusable);
        return Executor::create_cpu();
    }
    if (backend == BackendChoice::cpu) return Executor::create_cpu();
    if (backend == BackendChoice::cuda)
        throw std::runtime_error(Executor::cuda_built()
                                     ? "backend 'cuda' requested but no CUDA device is present"
                                     : "backend 'cuda' requested but gpufem was built without CUDA");
    return Executor::create_cpu();
}

CaseMesh load_case_mesh(const CaseSpec& spec, const ExecPtr& exec, MeshCopy copy, MeshStage stage)
{
    if (spec.matrix) {
        spdlog::info("case {}: reading {}{}", spec.name, spec.matrix->file.string(),
                     spec.matrix->rhs.empty() ? "" : " and " + spec.matrix->rhs.string());
        CaseMesh out;
        {
            const ProgressLine line("read", [] { return ProgressStatus{-1, -1, "Matrix Market"}; });
            out.external = read_external_system(spec.matrix->file, spec.matrix->rhs);
        }
        out.seconds = out.external->read_seconds;
        out.mesh.source = "matrix file " + spec.matrix->file.string();
        spdlog::info("matrix: {} rows, {} non-zeros ({:.3f} s){}", out.external->matrix.rows,
                     out.external->matrix.nnz(), out.seconds,
                     spec.matrix->rhs.empty() ? "; b = A 1, the error against 1 is reported" : "");
        return out;
    }
    spdlog::info("case {}: loading mesh", spec.name);
    if (spec.mesh.allow_commands)
        spdlog::warn("mesh.allow_commands: true: Gmsh evaluates '{}' outside the mesh worker's "
                     "sandbox; the script may run programs and read, write and delete files",
                     spec.mesh.path);
    const auto start = clock_type::now();
    CaseMesh out;
    MeshCacheStatus cache;
    std::optional<CoarseMeshVerdict> coarse_verdict;
    {
        const ProgressLine line("mesh", [] { return ProgressStatus{-1, -1, "Gmsh, extraction, refinement"}; });
        if (stage == MeshStage::finished && spec.mesh.refine > 0 && mesh_needs_gmsh(spec.mesh)) {
            // Gmsh's mesh refined by gpufem: what the refinement keeps is checked on Gmsh's
            // cells, before there are 8^refine times as many.
            Mesh coarse = load_coarse_mesh_isolated(spec.mesh, &cache);
            const double loaded = seconds_since(start);
            if (coarse_checks_needed(spec, cache)) coarse_verdict = check_coarse_mesh(spec, coarse, exec);
            spdlog::debug("mesh: Gmsh's cells loaded after {:.3f} s, {} {:.3f} s", loaded,
                          coarse_verdict ? "checked in" : "their checks as an earlier run found them:",
                          seconds_since(start) - loaded);
            out.mesh = finish_gmsh_mesh(std::move(coarse), spec.mesh, exec);
        } else {
            out.mesh = stage == MeshStage::finished ? load_mesh_isolated(spec.mesh, exec, &cache)
                                                    : load_coarse_mesh_isolated(spec.mesh, &cache);
        }
        out.cache = cache.describe();
        if (copy == MeshCopy::also_on_device && exec && exec->is_cuda() && !out.mesh.device)
            out.mesh.device = upload_mesh(out.mesh, exec);
    }
    out.seconds = seconds_since(start);
    const Mesh& mesh = out.mesh;
    for (const IgnoredGroup& ignored : mesh.ignored_boundaries)
        spdlog::warn("mesh: boundary group '{}' is ignored ({}); a condition on it is refused",
                     ignored.name, ignored.reason);
    spdlog::info("mesh: {} cells ({}), {} nodes ({:.3f} s)", mesh.num_cells(),
                 mesh.describe_cells(), mesh.num_nodes(), out.seconds);
    // Checked before anything is assembled; the checks are part of the mesh phase's time.
    // (A coarse mesh's verdict is not kept beside the cache file: that is the finished mesh's.)
    out.seconds += validate_case_mesh(spec, mesh, exec, stage == MeshStage::finished ? cache : MeshCacheStatus{},
                                      coarse_verdict ? &*coarse_verdict : nullptr)
                       .seconds;
    return out;
}

namespace {

/// Whether pmg's first coarse level will be made from the operator's own factors: the case's
/// operator level makes it (OperatorLevelEntry::coarse_level_from_factors), the case asks for
/// it (solver.amg.pa_coarse) and no Robin terms keep it from applying (pa_coarse_level).
bool first_level_from_factors(const CaseSpec& spec)
{
    const OperatorLevelEntry* level = lookup_operator(spec.format).level;
    return level && level->coarse_level_from_factors && spec.solver.amg.pa_coarse == AmgPaCoarse::factors &&
           spec.problem.robin.empty();
}

}  // namespace

template <typename V>
std::unique_ptr<Discretisation<V>> make_discretisation(const CaseSpec& spec, const CaseMesh& input)
{
    if (input.external) return std::make_unique<ExternalSystemDiscretisation<V>>(input.external);
    std::unique_ptr<Discretisation<V>> disc;
    if (spec.discretisation == DiscretisationKind::fv)
        disc = std::make_unique<FiniteVolumeDiscretisation<V>>(input.mesh, spec.problem, spec.fv);
    else
        disc = std::make_unique<LagrangeDiscretisation<V>>(input.mesh, spec.problem, first_level_from_factors(spec),
                                                           spec.solver.amg.through_degree_two);
    disc->set_flux_output(spec.output.fluxes, spec.output.flux_precision == Precision::float32);
    return disc;
}

namespace {

/// format: auto's choice past 2^31 - 1 entries: the first format with 64-bit row offsets
/// on the backend, without a trial (no other holds the matrix).
const FormatEntry& wide_offsets_format(const Executor& exec)
{
    for (const FormatEntry& entry : assembled_formats().entries())
        if (entry.takes_wide_csr() && entry.available_on(exec.backend())) {
            spdlog::info("format auto: past 2^31 - 1 non-zeros only format {} (64-bit row offsets) holds "
                         "the matrix: no other candidate", entry.name);
            return entry;
        }
    throw std::logic_error("format auto: no format takes 64-bit row offsets");
}

/// Throws when the preconditioner needs a CSR with 32-bit offsets that a system with 64-bit
/// ones does not keep: amg, and pmg where it is amg (no coarser level from the elements).
template <typename V>
void refuse_wide_preconditioner(const DiscreteSystem<V>& system, const PreconditionerEntry& preconditioner)
{
    if (!preconditioner.keeps_matrix(system.coarse_from_elements)) return;
    throw std::runtime_error(fmt::format(
        "preconditioner {}: the matrix has {} non-zeros and 64-bit row offsets (past 2,147,483,647, or "
        "format_options.csr.offsets: 64), which its setup does not read; use preconditioner {}",
        preconditioner.name, system.matrix ? system.matrix->nnz : 0, wide_offsets_preconditioners));
}

/// format: auto's system: assembled once, each candidate format built from a copy and timed
/// (choose_format), the fastest kept; past 2^31 - 1 entries the one format that holds them.
template <typename V>
DiscreteSystem<V> build_auto_format_system(const ExecPtr& exec, const Discretisation<V>& disc, const CaseSpec& spec,
                                           bool keep_matrix)
{
    // 64-bit offsets where a candidate's options ask for them (csr's offsets: 64).
    bool wide = false;
    for (const FormatEntry& entry : assembled_formats().entries())
        wide = wide || entry.wide_offsets_asked(spec.format_options);
    LinearSystem<V> assembled = [&] {
        const ProgressLine line("assembly", [] { return ProgressStatus{}; });
        return disc.assemble(exec, wide ? CsrOffsets::wide : CsrOffsets::fit);
    }();
    if (assembled.wide_matrix)
        return convert_system(std::move(assembled), wide_offsets_format(*exec), spec.format_options, keep_matrix);
    std::optional<ReorderedMatrix<V>> reordering;  // the case's, done once for every candidate
    const FormatChoice choice = [&] {
        const ProgressLine line("format auto", [] { return ProgressStatus{}; });
        return choose_format(assembled, spec, reordering);
    }();
    spdlog::info("{}", choice.table());
    FormatOptions options = spec.format_options;
    options.set_reordering(Reordering::none);
    DiscreteSystem<V> built =
        convert_system(std::move(assembled), assembled_formats().at(choice.format), options, keep_matrix);
    // The reordering's time is in format_choice_seconds (done inside the choice): not added
    // to operator_seconds again; op.reorder_seconds still reports it.
    if (reordering) prepend_reordering(built.op, *reordering);
    built.format_choice = choice.to_json();
    built.format_choice_seconds = choice.seconds;
    return built;
}

}  // namespace

template <typename V>
DiscreteSystem<V> build_case_system(const ExecPtr& exec, const Discretisation<V>& disc,
                                    const CaseSpec& spec)
{
    spdlog::info("assembling on {} ({}): {}", backend_name(exec->backend()), exec->device_name(),
                 disc.describe());
    // format: auto chooses after the assembly: its candidates keep the matrix for multigrid.
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    const bool coarse_from_elements =
        spec.format != auto_format_name &&
        preconditioner.coarse_from_elements(disc.has_pmg_coarse_operators(),
                                            find_operator(spec.format).matrix_free());
    const bool keep_matrix = preconditioner.keeps_matrix(coarse_from_elements);
    DiscreteSystem<V> system = [&] {
        if (spec.format == auto_format_name) return build_auto_format_system(exec, disc, spec, keep_matrix);
        const ProgressLine line("assembly", [] { return ProgressStatus{}; });
        return build_system(exec, disc, find_operator(spec.format), spec.format_options, keep_matrix);
    }();
    system.discretisation = &disc;
    // 64-bit offsets keep no CSR for pmg's Galerkin products: its coarse operators come from
    // the element matrices, as for a matrix-free format.
    system.coarse_from_elements =
        coarse_from_elements ||
        (system.wide_offsets && preconditioner.coarse_from_elements(disc.has_pmg_coarse_operators(), true));
    if (system.wide_offsets) refuse_wide_preconditioner(system, preconditioner);
    if (system.matrix) {
        spdlog::info("assembled {} unknowns, {} non-zeros in {:.3f} s", system.matrix->rows,
                     system.matrix->nnz, system.assembly_times.total());
    } else {
        spdlog::info("element matrices of {} cells kept (matrix-free) in {:.3f} s",
                     disc.mesh().num_cells(), system.assembly_times.total());
    }
    log_discretisation_report(disc.report());
    check_system_diagonal(system, disc, spec.solver);
    if (system.dirichlet_count == 0 && !fixed_without_dirichlet(spec.problem) && disc.space().location == UnknownLocation::nodes)
        spdlog::warn("no Dirichlet condition: the matrix is singular; a Krylov solver finds a "
                     "solution only if the data are compatible, defined up to a constant");
    const LinearOperator<V>& op = *system.op.op;
    spdlog::info("format {}: converted in {:.4f} s{}{}", system.format, system.op.convert_seconds,
                 op.parameters().empty() ? "" : ", " + op.parameters(),
                 system.op.host_steps.empty() ? "" : " (on the host: " + system.op.host_steps + ")");
    return system;
}

SolveOptions solve_options(const SolverSpec& solver)
{
    SolveOptions options;
    options.tolerance = solver.tolerance;
    options.max_iterations = solver.max_iterations;
    options.check_every = solver.check_every;
    options.graph = solver.cuda_graph;
    options.time_spmv = solver.time_spmv;
    options.fused_dot = solver.fused_dot;
    options.fused_direction = solver.fused_direction;
    options.resident = solver.resident_cg;
    return options;
}

namespace {

/// The kept preconditioner updated with the system's values (solve_system's kept), or null
/// when there is none to update or it cannot be updated (then the caller sets up a new one).
template <typename V>
Preconditioner<V>* updated_preconditioner(KeptPreconditionerOf<V>* kept, const DiscreteSystem<V>& system)
{
    if (!kept || !kept->preconditioner) return nullptr;
    Preconditioner<V>* m = kept->preconditioner.get();
    // Its set-up state is in the numbering of the system it was set up for: the same format
    // (and so the same reordering of the same pattern) only.
    if (kept->format != system.format || kept->permuted != !system.op.permutation.empty()) {
        spdlog::info("preconditioner {}: the kept hierarchy was set up for format {}, this system is in {}; "
                     "setting it up again", m->name(), kept->format, system.format);
        return nullptr;
    }
    try {
        return m->update(*system.op.op, system.preconditioner_matrix()) ? m : nullptr;
    } catch (const std::exception& e) {
        spdlog::info("preconditioner {}: the kept hierarchy was not updated ({}); setting it up again",
                     m->name(), e.what());
        return nullptr;
    }
}

/// The report of a kept preconditioner after its update: the update's time as its setup time,
/// the first setup's kept beside it.
nlohmann::json updated_report(const nlohmann::json& report, double update_seconds)
{
    nlohmann::json out = report;
    out["hierarchy"] = "updated";
    out["initial_setup_seconds"] = report.value("setup_seconds", 0.0);
    out["setup_seconds"] = update_seconds;
    if (out.contains("setup_phases")) out["initial_setup_phases"] = std::move(out["setup_phases"]);
    out.erase("setup_phases");
    return out;
}

/// solve_system after its preconditioner m (null: none) is ready: the solve of b (the
/// right-hand side) from x (the initial guess), both in the operator's numbering, with the
/// discretisation's correction when it has one (implicit, else deferred passes), the true
/// residual, the solution back in the original numbering. start: when solve_system's timing
/// began (out.seconds counts from it).
template <typename V>
SystemSolution<V> solve_with(const DiscreteSystem<V>& system, const SolverSpec& solver, const Discretisation<V>* disc,
                             const Preconditioner<V>* m, clock_type::time_point start, SystemSolution<V> out,
                             const Array<V>& b, Array<V> x)
{
    SolveRun<V> run(system, solver, disc, m, out);
    Array<V> corrected_b;  // the corrected right-hand side x was last measured against
    if (disc && disc->correction_passes() > 0) {
        if (solve_with_correction(run, b, x, corrected_b) == CorrectionSolve::implicit) {
            out.seconds = seconds_since(start);
            out.x = reordered(system.op, x, true);
            return out;
        }
    } else {
        run.pass(b, x, solver.tolerance, "solve");
    }
    out.seconds = seconds_since(start);
    check_true_residual(run.a(), corrected_b.empty() ? b : corrected_b, x, solver.tolerance, out.result);
    out.x = reordered(system.op, x, true);
    return out;
}

}  // namespace

template <typename V>
SystemSolution<V> solve_system(const DiscreteSystem<V>& system, const SolverSpec& solver,
                               const Discretisation<V>* disc, KeptPreconditionerOf<V>* kept)
{
    const LinearOperator<V>& a = *system.op.op;
    const PreconditionerEntry& entry = *solver.preconditioner;
    spdlog::info("solving with {} ({}, preconditioner {}, tolerance {:.1e}, at most {} iterations)",
                 method_name(solver.method), variant_name(solver.variant), entry.name, solver.tolerance,
                 solver.max_iterations);
    const Array<V> b = reordered(system.op, system.rhs, false);
    Array<V> x = reordered(system.op, system.initial_guess, false);
    SystemSolution<V> out;
    const auto start = clock_type::now();
    if (Preconditioner<V>* updated = updated_preconditioner(kept, system)) {
        out.preconditioner = updated_report(updated->report(), updated->update_seconds());
        spdlog::info("preconditioner {}: hierarchy updated with the new values in {:.3f} s (its aggregates "
                     "and transfers kept; set up in {:.3f} s){}", updated->name(), updated->update_seconds(),
                     out.preconditioner["initial_setup_seconds"].template get<double>(),
                     describe_levels(out.preconditioner));
        return solve_with(system, solver, disc, updated, start, std::move(out), b, std::move(x));
    }
    // A kept hierarchy that could not be updated goes before the new one is built (not two at
    // the peak).
    if (kept) kept->preconditioner.reset();
    const cuda::AllocationTally before = cuda::allocation_tally();
    SetUpPreconditioner<V> made = entry.build(PreconditionerSetup<V>{
        a, system.preconditioner_matrix(), system.discretisation, system.op.permutation,
        system.coarse_from_elements, solver, nullptr});
    if (kept) {
        kept->preconditioner = std::move(made.preconditioner);
        kept->format = system.format;
        kept->permuted = !system.op.permutation.empty();
    }
    Preconditioner<V>* m = kept ? kept->preconditioner.get() : made.preconditioner.get();
    if (m) {
        out.preconditioner = m->report();
        // The setup's steps done before the hierarchy: counted in its setup time.
        for (const auto& [phase, seconds] : made.steps) {
            if (seconds <= 0 || !out.preconditioner.contains("setup_seconds")) continue;
            out.preconditioner["setup_seconds"] = out.preconditioner["setup_seconds"].template get<double>() + seconds;
            out.preconditioner["setup_phases"][phase] = seconds;
        }
        if (out.preconditioner.contains("setup_seconds"))
            spdlog::info("preconditioner {}: set up in {:.3f} s{}", m->name(),
                         out.preconditioner["setup_seconds"].template get<double>(),
                         describe_levels(out.preconditioner));
        spdlog::debug("preconditioner setup: device allocations {}", cuda::allocations_since(before));
    }
    return solve_with(system, solver, disc, m, start, std::move(out), b, std::move(x));
}

double true_residual_in_double(const ExecPtr& exec, const CaseSpec& spec, const CaseMesh& input,
                               const Array<float>& u)
{
    const auto disc = make_discretisation<double>(spec, input);
    FormatOptions options = spec.format_options;
    options.set_reordering(Reordering::none);  // u and b are in the original numbering
    // The case's own operator when it is matrix-free (no CSR: past 2^31 non-zeros there is
    // none), the baseline format otherwise.
    const OperatorChoice case_operator =
        spec.format == auto_format_name ? OperatorChoice{} : find_operator(spec.format);
    const DiscreteSystem<double> system = build_system(
        exec, *disc, case_operator.matrix_free() ? case_operator : OperatorChoice{&baseline_format(), nullptr}, options);
    const std::vector<float> single = u.to_host();
    const Array<double> x = Array<double>::from_host(exec, std::vector<double>(single.begin(), single.end()));
    // With a correction, the system u solves has the right-hand side corrected by u.
    Array<double> r = disc->correction_passes() > 0 ? disc->corrected_rhs(x) : system.rhs.clone_to(exec);
    const double rhs_norm = scaled_nrm2(r);
    system.op.op->apply(-1.0, x, 1.0, r);
    return rhs_norm > 0 ? scaled_nrm2(r) / rhs_norm : 0.0;
}

#define GPUFEM_INSTANTIATE(V)                                                                     \
    template std::unique_ptr<Discretisation<V>> make_discretisation(const CaseSpec&, const CaseMesh&); \
    template DiscreteSystem<V> build_case_system(const ExecPtr&, const Discretisation<V>&,      \
                                                 const CaseSpec&);                              \
    template SystemSolution<V> solve_system(const DiscreteSystem<V>&, const SolverSpec&,          \
                                            const Discretisation<V>*, KeptPreconditionerOf<V>*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
