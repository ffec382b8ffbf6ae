#include "solver/run/run_case.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/device_runtime.hpp"
#include "linalg/host_memory.hpp"
#include "linalg/host_vector.hpp"
#include "linalg/matrix_market.hpp"
#include "mesh/mesh_worker.hpp"
#include "mesh/gll_output.hpp"
#include "mesh/vtk_writer.hpp"
#include "solver/run/float_range.hpp"
#include "solver/run/memory_meter.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/phase_errors.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/progress_line.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// What the system is, into the record.
template <typename V>
void record_system(const DiscreteSystem<V>& system, RunRecord& record)
{
    const LinearOperator<V>& op = *system.op.op;
    record.time_assembly = system.assembly_times;
    record.time_operator = system.operator_seconds;
    record.time_reorder = system.op.reorder_seconds;
    record.format = system.format;
    record.format_choice = system.format_choice;
    record.time_format_choice = system.format_choice_seconds;
    record.rows = op.rows();
    if (system.matrix) {
        record.nnz = system.matrix->nnz;
        record.row_stats = system.matrix->row_stats;
        record.wide_offsets = system.wide_offsets;
    }
    record.dirichlet_rows = system.dirichlet_count;
    record.bytes_stored = op.bytes_stored();
    record.spmv_min_bytes = op.spmv_min_bytes();
    record.format_host_steps = system.op.host_steps;
}

/// How the solve went, into the record.
template <typename V>
void record_solve(const CaseSpec& spec, const LinearOperator<V>& op, SystemSolution<V>& solved,
                  RunRecord& record)
{
    record.solve = std::move(solved.result);
    record.time_solve = solved.seconds;
    record.preconditioner = std::move(solved.preconditioner);
    record.pass_iterations = solved.pass_iterations;
    record.correction_change = solved.correction_change;
    record.correction = solved.correction;
    if (record.preconditioner.contains("setup_seconds"))
        record.time_preconditioner_setup = record.preconditioner["setup_seconds"].get<double>();
    record.spmv_seconds = record.solve.spmv_seconds;
    record.spmv_clock = record.solve.spmv_clock;
    // The implicit finite-volume correction solves with BiCGSTAB whatever the method.
    record.spmvs_per_iteration =
        spmvs_per_iteration(solved.correction == "implicit" ? KrylovMethod::bicgstab : spec.solver.method);
    record.format_parameters = op.parameters();
    if (!record.format_parameters.empty())
        spdlog::info("format {} after the solve: {}", record.format, record.format_parameters);
    if (record.solve.converged()) {
        spdlog::info("{}", record.solve.message);
    } else {
        spdlog::error("solver {}: {}", solve_status_name(record.solve.status), record.solve.message);
    }
}

/// result.vtu, spmv_timings.csv and report.json, staged and renamed together.
/// The output files staged while the run goes on: result.vtu's mesh written on the host's
/// idle threads while the device works (CUDA runs writing an LZ4 result.vtu of a mesh).
struct EarlyOutputs {
    std::unique_ptr<StagedOutputs> outputs;
    std::filesystem::path vtu;  ///< the staged result.vtu
    std::unique_ptr<VtuLz4Prewrite> prewrite;
    /// A mesh with GLL nodes: its equispaced copy (made and written on the prewrite's thread)
    /// and the point fields written early, converted to it.
    std::shared_ptr<Mesh> equispaced;
    std::vector<MeshField> early_fields;
    /// Whether the discretisation gives its point fields at the equispaced points already
    /// (converted where they are computed, on the device for a CUDA run).
    bool fields_converted = false;
};

/// Starts writing result.vtu's mesh when the run qualifies (see EarlyOutputs); else empty.
EarlyOutputs start_early_outputs(const CaseSpec& spec, const RunOptions& options, const Executor& exec,
                                 const Mesh& mesh)
{
    EarlyOutputs early;
    if (!exec.is_cuda() || !options.write_outputs || !spec.output.write_solution || spec.matrix ||
        spec.output.compression != VtuCompression::lz4)
        return early;
    early.outputs = std::make_unique<StagedOutputs>(output_folder(spec, options));
    early.vtu = early.outputs->stage("result.vtu");
    // Three quarters of the host's threads compress (the device does the run's work meanwhile;
    // one more thread writes what they compressed).
    const int threads = std::max(1, 3 * static_cast<int>(std::thread::hardware_concurrency()) / 4);
    if (mesh_has_gll_nodes(mesh)) {  // VTK's Lagrange nodes are equispaced: the copy moved there
        early.equispaced = std::make_shared<Mesh>();
        early.prewrite = start_vtu_prewrite(
            early.vtu,
            [copy = early.equispaced, &mesh, device = exec.device_id()]() -> const Mesh& {
                // Moved by the device on a stream of its own, beside the run's work.
                *copy = equispaced_mesh(mesh, Executor::create_cuda(device));
                return *copy;
            },
            threads);
        return early;
    }
    early.prewrite = start_vtu_prewrite(early.vtu, mesh, threads);
    return early;
}

/// Writes the solution u into the prewrite's file (mesh: the run's mesh; on a mesh with GLL
/// nodes u is at the equispaced points already when the discretisation converted it, else it is
/// converted on the host first, kept in early).
void write_solution_early(EarlyOutputs& early, const Mesh& mesh, const MeshField& u)
{
    if (!early.equispaced || early.fields_converted) {
        write_vtu_field_early(*early.prewrite, mesh, u);
        return;
    }
    const auto start = clock_type::now();
    early.early_fields = equispaced_point_fields(mesh, {u});
    spdlog::debug("u at the equispaced points in {:.3f} s", seconds_since(start));
    write_vtu_field_early(*early.prewrite, mesh, early.early_fields.front());
}

/// result.vtu of a mesh with GLL nodes whose equispaced copy was prewritten: the point fields
/// as they are when the discretisation gave them at the equispaced points, else those not
/// written early converted on the host; then the file finished.
void finish_equispaced_vtu(const CaseSpec& spec, const Mesh& mesh, const SolutionOutput& solution,
                           EarlyOutputs& early, const std::function<void(double)>& on_progress)
{
    if (solution.point_fields_equispaced) {
        write_vtu_equispaced(early.vtu, *early.equispaced, solution.point_fields, solution.cell_fields,
                             spec.output.compression, on_progress, early.prewrite.get());
        return;
    }
    std::vector<std::string> written;
    for (const MeshField& e : early.early_fields) written.push_back(e.name);
    const auto start = clock_type::now();
    std::vector<MeshField> fields = equispaced_point_fields(mesh, solution.point_fields, written);
    spdlog::debug("{} point fields at the equispaced points in {:.3f} s", fields.size(), seconds_since(start));
    for (MeshField& e : early.early_fields) fields.push_back(std::move(e));
    write_vtu_equispaced(early.vtu, *early.equispaced, fields, solution.cell_fields, spec.output.compression,
                         on_progress, early.prewrite.get());
}

void write_outputs(const CaseSpec& spec, const RunOptions& options, const Mesh& mesh,
                   const SolutionOutput& solution, MemoryMeter& meter, RunRecord& record,
                   EarlyOutputs& early)
{
    const auto start = clock_type::now();
    std::optional<StagedOutputs> own;
    StagedOutputs& outputs = early.outputs ? *early.outputs : own.emplace(output_folder(spec, options));
    const bool external = spec.matrix.has_value();
    if (spec.output.write_solution && external) {
        // An external system has no mesh: its solution is a Matrix Market vector.
        const auto mtx = outputs.stage("solution.mtx");
        write_matrix_market_vector(mtx, solution.point_fields.front().values,
                                   "gpufem solution of " + spec.matrix->file.filename().string());
        record.solution_file_bytes = std::filesystem::file_size(mtx);
    } else if (spec.output.write_solution) {
        const auto vtu = early.prewrite ? early.vtu : outputs.stage("result.vtu");
        std::atomic<double> fraction{0};
        const ProgressLine line("output", [&fraction] {
            return ProgressStatus{fraction.load(), -1, "result.vtu"};
        });
        const auto progress = [&fraction](double f) { fraction.store(f); };
        if (early.equispaced)
            finish_equispaced_vtu(spec, mesh, solution, early, progress);
        else
            write_vtu(vtu, mesh, solution.point_fields, solution.cell_fields, spec.output.compression, progress,
                      early.prewrite.get());
        record.solution_file_bytes = std::filesystem::file_size(vtu);
    }
    outputs.write_text("spmv_timings.csv", make_spmv_csv(record));
    record.time_output = seconds_since(start);
    meter.stop("output");
    record.memory_measured = meter.phases();
    record.time_wall = seconds_since(options.started);
    outputs.write_text("report.json", make_report(spec, record).dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote {}report.json, spmv_timings.csv to {}",
                 spec.output.write_solution ? (external ? "solution.mtx, " : "result.vtu, ") : "",
                 outputs.dir().string());
    spdlog::debug("device allocations over the run: {}", cuda::allocations_since());
}

/// --export-matrix: the system assembled again (after the boundary conditions, in the
/// original numbering, whatever the format) and the solution, as Matrix Market, staged and
/// renamed together.
template <typename V>
void export_system(const CaseSpec& spec, const Discretisation<V>& disc, const ExecPtr& exec,
                   const Array<V>& x, const std::filesystem::path& dir)
{
    LinearSystem<V> system = disc.assemble(exec);
    if (system.wide_matrix)
        throw std::runtime_error(fmt::format(
            "--export-matrix: the matrix has {} non-zeros, past 2,147,483,647; gpufem does not write "
            "Matrix Market files of that size (the solution and report are written)",
            system.wide_matrix->nnz()));
    // With a correction (finite volumes), x solves the system whose right-hand side x corrects.
    if (disc.correction_passes() > 0) system.rhs = disc.corrected_rhs(x);
    StagedOutputs outputs(dir);
    const std::string what = fmt::format("gpufem case {}: {}", spec.name, disc.describe());
    write_matrix_market(outputs.stage("A.mtx"), system.matrix, what + ", the system matrix");
    const auto as_double = [](const Array<V>& v) {
        const std::vector<V> host = v.to_host();
        return std::vector<double>(host.begin(), host.end());
    };
    write_matrix_market_vector(outputs.stage("b.mtx"), as_double(system.rhs), what + ", the right-hand side");
    write_matrix_market_vector(outputs.stage("x.mtx"), as_double(x), what + ", the solution");
    outputs.commit();
    spdlog::info("exported A.mtx, b.mtx, x.mtx ({} rows, {} non-zeros) to {}", system.matrix.rows,
                 system.matrix.nnz(), outputs.dir().string());
}

}  // namespace

void check_export_matrix(const CaseSpec& spec, const RunOptions& options)
{
    if (!options.export_matrix_dir.empty() && is_sweep(spec))
        throw std::invalid_argument("--export-matrix writes one system: run the sweep's points one "
                                    "at a time (--set degree=N --set mesh.refine=N --set problem.kappa=...)");
}

namespace {

/// The record's estimate of a phase (nullptr before there is one).
const PhaseEstimate* phase_estimate(const RunRecord& record, const std::string& phase)
{
    if (!record.memory_estimate) return nullptr;
    for (const PhaseEstimate& p : record.memory_estimate->phases)
        if (p.phase == phase) return &p;
    return nullptr;
}

/// The preconditioner a coefficient sweep's points keep, of value type V (null outside a sweep).
template <typename V>
KeptPreconditionerOf<V>* kept_preconditioner(SweepReuse* reuse)
{
    if (!reuse) return nullptr;
    auto* kept = dynamic_cast<KeptPreconditionerOf<V>*>(reuse->preconditioner.get());
    if (kept) return kept;
    auto made = std::make_shared<KeptPreconditionerOf<V>>();
    kept = made.get();
    reuse->preconditioner = std::move(made);
    return kept;
}

/// The assembly and solve phases: the system of disc is built, recorded, solved and freed.
template <typename V>
SystemSolution<V> assemble_and_solve(const CaseSpec& spec, const ExecPtr& exec, const Discretisation<V>& disc,
                                     MemoryMeter& meter, RunRecord& record, KeptPreconditionerOf<V>* kept)
{
    const DiscreteSystem<V> system = meter.measure("assembly", [&] {
        return in_phase("assembly", [&] { return build_case_system(exec, disc, spec); },
                        phase_estimate(record, "assembly"));
    });
    record_system(system, record);
    SystemSolution<V> solved = meter.measure("solve", [&] {
        return in_phase("solve", [&] { return solve_system(system, spec.solver, &disc, kept); },
                        phase_estimate(record, "solve"));
    });
    record_solve(spec, *system.op.op, solved, record);
    record.discretisation = disc.report();
    return solved;
}

/// The errors phase: the solution's fields and error norms (a float solution also checked
/// against the system in double).
template <typename V>
SolutionOutput compute_errors(const CaseSpec& spec, const ExecPtr& exec, const CaseMesh& input,
                              const Discretisation<V>& disc, const Array<V>& x, MemoryMeter& meter,
                              RunRecord& record)
{
    const auto start = clock_type::now();
    std::optional<SolutionOutput> computed;
    {
        const ProgressLine line("errors", [] { return ProgressStatus{}; });
        computed.emplace(meter.measure("errors", [&] {
            return in_phase("errors", [&] {
                if constexpr (std::is_same_v<V, float>)
                    record.true_relative_residual_double = true_residual_in_double(exec, spec, input, x);
                return disc.solution_output(x);
            }, phase_estimate(record, "errors"));
        }));
    }
    if (record.true_relative_residual_double >= 0)
        spdlog::info("true residual of the float solution against the system in double: {:.3e}",
                     record.true_relative_residual_double);
    record.errors = computed->errors;
    record.fluxes = computed->fluxes;
    record.time_errors = seconds_since(start);
    return std::move(*computed);
}

/// mesh -> discretisation -> system -> solve -> output, in precision V.
template <typename V>
void run_stages(const CaseSpec& spec, const RunOptions& options, const ExecPtr& exec,
                const CaseMesh& input, MemoryMeter& meter, RunRecord& record, SweepReuse* reuse)
{
    KeptPreconditionerOf<V>* kept = kept_preconditioner<V>(reuse);
    const Mesh& mesh = input.mesh;
    EarlyOutputs early = start_early_outputs(spec, options, *exec, mesh);
    const auto disc = make_discretisation<V>(spec, input);
    if (early.equispaced) early.fields_converted = disc->give_equispaced_point_fields();
    // The solution goes into result.vtu while the errors phase computes the fields after it.
    if (early.prewrite)
        disc->set_solution_ready([&early, &mesh](const MeshField& u) { write_solution_early(early, mesh, u); });
    // So do the cells' flux fields while the device computes the point fields (not on a mesh
    // with GLL nodes whose point fields the host converts at the end).
    if (early.prewrite && (!early.equispaced || early.fields_converted))
        disc->set_cell_fields_ready([&early, &mesh](std::span<const MeshField> fields) {
            write_vtu_cell_fields_early(*early.prewrite, mesh, fields);
        });
    record.unknowns_on = unknown_location_name(disc->space().location);
    const SystemSolution<V> solved = assemble_and_solve(spec, exec, *disc, meter, record, kept);
    if (!options.export_matrix_dir.empty()) {
        const auto export_start = clock_type::now();
        in_phase("export", [&] { export_system(spec, *disc, exec, solved.x, options.export_matrix_dir); });
        record.time_export = seconds_since(export_start);
    }
    const SolutionOutput solution = compute_errors(spec, exec, input, *disc, solved.x, meter, record);
    if (options.write_outputs) {
        // report.json is written inside the output phase, so it carries that phase's memory
        // as measured up to the report itself (the VTU, the larger part, is written by then).
        meter.start();
        in_phase("output", [&] { write_outputs(spec, options, mesh, solution, meter, record, early); },
                 phase_estimate(record, "output"));
    }
    record.memory_measured = meter.phases();
}

/// run_stages in the case's precision.
void run_in_precision(const CaseSpec& spec, const RunOptions& options, const ExecPtr& exec, const CaseMesh& input,
                      MemoryMeter& meter, RunRecord& record, SweepReuse* reuse)
{
    if (spec.precision == Precision::float32) {
        run_stages<float>(spec, options, exec, input, meter, record, reuse);
    } else {
        run_stages<double>(spec, options, exec, input, meter, record, reuse);
    }
}

/// Logs the estimate's peaks and stops (or, unchecked, warns) when it does not fit. A
/// coefficient sweep's later points (mesh_kept) skip the memory check: their first point passed
/// it with the same sizes, and the free memory now excludes the kept mesh and hierarchy that
/// the estimate counts again.
void log_and_check_estimate(const MemoryEstimate& estimate, const Executor& exec, bool check, bool mesh_kept)
{
    spdlog::info("memory estimate: {:.3f} GB host peak{}; matrix about {:.4g} non-zeros, format "
                 "{} {:.3f} GB",
                 estimate.peak_host() / 1e9,
                 exec.is_cuda() ? fmt::format(", {:.3f} GB device peak", estimate.peak_device() / 1e9) : "",
                 estimate.matrix.nnz, estimate.format_name, estimate.format.stored / 1e9);
    check_csr_limit(estimate);  // a limit of the format, not of the free memory: always
    if (mesh_kept) return;
    try {
        check_memory_fits(estimate, exec);
    } catch (const std::runtime_error& e) {
        if (check) throw;
        spdlog::warn("{} (going on: --no-memory-check)", e.what());
    }
}

/// The process's resident bytes before the run's large arrays: without the blocks made ahead
/// for the mesh (run_executor), which the estimate counts with the mesh's arrays (read once
/// their thread has made them).
double baseline_host_bytes()
{
    const auto prepared = static_cast<double>(prepared_host_bytes());
    return static_cast<double>(resident_host_bytes()) - prepared;
}

}  // namespace

MemoryEstimate estimate_case_memory(const CaseSpec& spec, const ExecPtr& exec)
{
    const double baseline_host = baseline_host_bytes();
    if (spec.matrix) return estimate_external_memory(spec, *exec, baseline_host);
    if (const auto predicted = predicted_mesh_counts(spec.mesh))
        return estimate_memory(spec, *predicted, *exec, baseline_host);
    const CaseMesh loaded = in_phase("mesh", [&] { return load_case_mesh(spec, exec); });
    return estimate_memory(spec, mesh_counts(loaded.mesh), *exec, baseline_host);
}

std::filesystem::path output_folder(const CaseSpec& spec, const RunOptions& options)
{
    if (!options.output_dir.empty()) return options.output_dir;
    const auto folder = spec.case_path.empty() ? std::filesystem::current_path()
                                               : spec.case_path.parent_path();
    return folder / spec.name;
}

namespace {

/// The run's executor (a sweep's previous one when kept); Gmsh's worker starts while the CUDA
/// context is made, and a generated mesh's host arrays are made (their pages given by the
/// kernel) meanwhile, so that the mesh phase writes into memory that is already there.
ExecPtr run_executor(const CaseSpec& spec, SweepReuse* reuse, bool mesh_kept)
{
    const auto start = std::chrono::steady_clock::now();
    if (!spec.matrix && !mesh_kept) prestart_mesh_worker(spec.mesh);
    if (!spec.matrix && !mesh_kept && !(reuse && reuse->exec) && spec.backend != BackendChoice::cpu)
        prepare_large_host_blocks(generated_mesh_host_bytes(spec.mesh));
    const double worker = seconds_since(start);
    if (reuse && reuse->exec) return reuse->exec;
    uses_cuda(spec.backend);  // the driver's start (cuInit) for a CUDA backend, timed apart from the context
    const double driver = seconds_since(start) - worker;
    const ExecPtr exec = make_executor(spec.backend);
    if (reuse) reuse->exec = exec;
    spdlog::debug("executor ready: {} (mesh worker started in {:.3f} s, the driver in {:.3f} s, the "
                  "device's context and stream in {:.3f} s)",
                  exec->device_name(), worker, driver, seconds_since(start) - worker - driver);
    return exec;
}

/// Throws when the tolerance is below the precision's unit roundoff; warns when float
/// arithmetic is unlikely to reach it.
void check_tolerance(const CaseSpec& spec)
{
    if (spec.solver.tolerance < smallest_tolerance(spec.precision))
        throw std::runtime_error(fmt::format(
            "solver.tolerance {:.1e} is below the unit roundoff of {} arithmetic ({:.2e}): no "
            "residual can reach it; use a tolerance >= {:.2e}{}",
            spec.solver.tolerance, precision_name(spec.precision),
            smallest_tolerance(spec.precision), smallest_tolerance(spec.precision),
            spec.precision == Precision::float32 ? " or precision: double" : ""));
    if (spec.precision == Precision::float32 && spec.solver.tolerance < 1e-6)
        spdlog::warn("solver.tolerance {:.1e} is below what float arithmetic can reach; the "
                     "solve may stop at max_iterations", spec.solver.tolerance);
    if (spec.precision == Precision::float32 && !spec.matrix)
        for (const std::string& warning : float_range_warnings(spec.problem)) spdlog::warn("{}", warning);
}

/// The memory estimate before anything large is allocated: a matrix case's from its header,
/// a generated shape's from its counts; false when it waits for the mesh (Gmsh meshes).
bool estimate_before_mesh(const CaseSpec& spec, const RunOptions& options, const Executor& exec,
                          double baseline_host, bool mesh_kept, RunRecord& record)
{
    if (spec.matrix)
        record.memory_estimate = estimate_external_memory(spec, exec, baseline_host);
    else if (const auto predicted = predicted_mesh_counts(spec.mesh))
        record.memory_estimate = estimate_memory(spec, *predicted, exec, baseline_host);
    else
        return false;
    log_and_check_estimate(*record.memory_estimate, exec, options.check_memory, mesh_kept);
    return true;
}

/// The mesh phase: the case's mesh loaded (or a sweep's previous point's).
std::shared_ptr<const CaseMesh> run_mesh_phase(const CaseSpec& spec, const ExecPtr& exec, MemoryMeter& meter,
                                               RunRecord& record, SweepReuse* reuse)
{
    if (reuse && reuse->mesh) {
        record.mesh_reused = true;
        spdlog::info("mesh: the previous sweep point's ({} cells, {} nodes)", reuse->mesh->mesh.num_cells(),
                     reuse->mesh->mesh.num_nodes());
        return reuse->mesh;
    }
    auto input = std::make_shared<const CaseMesh>(meter.measure("mesh", [&] {
        return in_phase("mesh", [&] { return load_case_mesh(spec, exec, MeshCopy::also_on_device); },
                        phase_estimate(record, "mesh"));
    }));
    if (const std::size_t unused = release_prepared_host_blocks())
        spdlog::debug("mesh: {:.1f} MB made ahead for its arrays and not taken, freed", 1e-6 * static_cast<double>(unused));
    if (reuse) reuse->mesh = input;
    return input;
}

/// The mesh's figures in the record (a read system's reading time only).
void record_mesh(const CaseMesh& loaded, bool mesh_kept, RunRecord& record)
{
    const Mesh& mesh = loaded.mesh;
    record.mesh_source = mesh.source;
    if (loaded.external) {
        record.time_read = mesh_kept ? 0.0 : loaded.seconds;
        return;
    }
    record.mesh_cache = loaded.cache;
    if (!mesh_kept) {
        record.time_mesh = loaded.seconds;
        record.time_mesh_parts = loaded.mesh.build_times;
    }
    record.dim = mesh.dim;
    record.cell_type = mesh.describe_cells();
    record.nodes = mesh.num_nodes();
    record.cells = mesh.num_cells();
    record.boundary_groups = mesh.boundary_names();
}

}  // namespace

RunRecord run_case(const CaseSpec& spec, const RunOptions& options, SweepReuse* reuse)
{
    RunRecord record;
    const bool mesh_kept = reuse && reuse->mesh;
    const ExecPtr exec = run_executor(spec, reuse, mesh_kept);
    record.backend = backend_name(exec->backend());
    record.device = exec->device_name();
    record.precision = precision_name(spec.precision);
    record.format = spec.format;
    record.reorder = enum_name(reordering_names, spec.format_options.reordering());
    check_tolerance(spec);
    const double baseline_host = baseline_host_bytes();
    const bool estimated = estimate_before_mesh(spec, options, *exec, baseline_host, mesh_kept, record);
    MemoryMeter meter(exec);
    record.time_startup = seconds_since(options.started);
    const std::shared_ptr<const CaseMesh> input = run_mesh_phase(spec, exec, meter, record, reuse);
    if (!estimated) {
        record.memory_estimate = estimate_memory(spec, mesh_counts(input->mesh), *exec, baseline_host);
        log_and_check_estimate(*record.memory_estimate, *exec, options.check_memory, mesh_kept);
    }
    record_mesh(*input, mesh_kept, record);
    run_in_precision(spec, options, exec, *input, meter, record, reuse);
    return record;
}

}  // namespace gpufem
