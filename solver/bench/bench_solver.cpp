#include "solver/bench/bench_solver.hpp"
#include "solver/run/format_choice.hpp"

#include <chrono>
#include <cstdio>
#include <optional>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "linalg/precision.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/bench/bench_formats.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/krylov/krylov.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/float_cycle.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// A timed solve: wall seconds (synchronised) and the iterations it ran.
struct Timed {
    double seconds = 0;
    int iterations = 0;
    SolveStatus status = SolveStatus::max_iterations;
    bool graph = false;  ///< replayed from a CUDA graph
    bool fused_dot = false;  ///< CG's p.Ap in the product's pass
    bool fused_direction = false;  ///< and the direction
    bool resident = false;  ///< the whole solve in one resident kernel
};

template <typename V>
Timed timed_solve(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                  const Preconditioner<V>* m, const Array<V>& b, SolveOptions options,
                  int iterations, double tolerance = 1e-300)
{
    const ExecPtr& exec = a.executor();
    Array<V> x(exec, b.size());
    fill(x, V(0));
    options.max_iterations = iterations;
    options.tolerance = tolerance;  // 1e-300: the full count unless the method breaks down
    exec->synchronize();
    const auto start = std::chrono::steady_clock::now();
    const SolveResult r = solve(method, variant, a, b, x, options, m);
    exec->synchronize();
    Timed t;
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    t.iterations = r.iterations;
    t.status = r.status;
    t.graph = r.graph_used;
    t.fused_dot = r.fused_dot;
    t.fused_direction = r.fused_direction;
    t.resident = r.resident;
    return t;
}

/// Median wall time of repeats solves of `iterations` iterations (and the iterations run).
template <typename V>
Timed median_solve(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                   const Preconditioner<V>* m, const Array<V>& b, const SolveOptions& options,
                   int iterations, int repeats)
{
    std::vector<double> seconds;
    Timed last;
    for (int i = 0; i < repeats; ++i) {
        last = timed_solve(method, variant, a, m, b, options, iterations);
        seconds.push_back(last.seconds);
    }
    last.seconds = median(seconds);
    return last;
}

/// One configuration's solves: the method, variant, operator, preconditioner and right-hand
/// side every timing of measure shares.
template <typename V>
struct BenchSolves {
    KrylovMethod method;
    KrylovVariant variant;
    const LinearOperator<V>& a;
    const Preconditioner<V>* m;
    const Array<V>& b;
    SolveOptions options;
    int long_run = 0;   ///< iterations of the long timed solves
    int short_run = 0;  ///< iterations of the short ones (their difference gives one iteration)
    int repeats = 1;

    /// A timed solve of iterations iterations (to tolerance when given) with options o.
    Timed once(const SolveOptions& o, int iterations, double tolerance = 1e-300) const
    {
        return timed_solve(method, variant, a, m, b, o, iterations, tolerance);
    }
    /// The median of repeats such solves.
    Timed median_of(const SolveOptions& o, int iterations) const
    {
        return median_solve(method, variant, a, m, b, o, iterations, repeats);
    }
};

/// The preconditioner set up for the system, its setup's wall time in row.
template <typename V>
SetUpPreconditioner<V> timed_setup(const PreconditionerEntry& pre, const DiscreteSystem<V>& system,
                                   const CaseSpec& spec, SolverBenchRow& row)
{
    const LinearOperator<V>& a = *system.op.op;
    a.executor()->synchronize();
    const auto setup_start = std::chrono::steady_clock::now();
    SetUpPreconditioner<V> preconditioner = pre.build(
        PreconditionerSetup<V>{a, system.preconditioner_matrix(), system.discretisation, system.op.permutation,
                               system.coarse_from_elements, spec.solver, nullptr});
    a.executor()->synchronize();
    row.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    return preconditioner;
}

/// Seconds per iteration from a long and a short run (after a warm-up: the csr tuner settles,
/// the caches and the allocator are warm), and whether a CUDA graph replayed them.
template <typename V>
void time_iterations(const BenchSolves<V>& run, SolverBenchRow& row)
{
    run.once(run.options, std::min(run.long_run, 30));
    const Timed t_long = run.median_of(run.options, run.long_run);
    const Timed t_short = run.median_of(run.options, run.short_run);
    if (t_long.status == SolveStatus::breakdown || t_long.status == SolveStatus::not_finite)
        row.error = fmt::format("stopped after {} iterations ({})", t_long.iterations,
                                solve_status_name(t_long.status));
    row.seconds_per_iteration =
        seconds_per_iteration(t_long.seconds, t_long.iterations, t_short.seconds, t_short.iterations);
    row.graph = t_long.graph;
    row.fused_dot = t_long.fused_dot;
    row.fused_direction = t_long.fused_direction;
    row.resident = t_long.resident;
}

/// The split of an iteration: every SpMV, update and reduction between events (graph off);
/// and the bytes an iteration moves against the copy bandwidth.
template <typename V>
void time_phases(const BenchSolves<V>& run, double copy_bw, SolverBenchRow& row)
{
    const auto spmv = make_interval_timer(run.a.executor());
    const auto vector = make_interval_timer(run.a.executor());
    const auto reduction = make_interval_timer(run.a.executor());
    SolverPhaseTimers phases{spmv.get(), vector.get(), reduction.get()};
    SolveOptions phased = run.options;
    phased.phases = &phases;
    const Timed t_phased = run.once(phased, run.short_run);
    const double its = std::max(1, t_phased.iterations);
    row.spmv_seconds = total(spmv->seconds()) / its;
    row.vector_seconds = total(vector->seconds()) / its;
    row.reduction_seconds = total(reduction->seconds()) / its;
    row.bytes_per_iteration =
        static_cast<std::size_t>(spmvs_per_iteration(run.method)) * run.a.spmv_min_bytes() +
        vector_bytes_per_iteration(run.method, run.variant, traffic_of(run.m), run.b.size(), sizeof(V),
                                   t_phased.fused_dot);
    if (row.seconds_per_iteration > 0) {
        row.gbps = row.bytes_per_iteration / row.seconds_per_iteration * 1e-9;
        row.percent_of_copy = 100.0 * row.bytes_per_iteration / row.seconds_per_iteration / copy_bw;
    }
}

/// Time to solution: the case's tolerance from x = 0, the setup added.
template <typename V>
void time_to_solution(const BenchSolves<V>& run, const SolverSpec& solver, SolverBenchRow& row)
{
    const Timed to_tolerance = run.once(run.options, solver.max_iterations, solver.tolerance);
    row.iterations_to_tolerance = to_tolerance.iterations;
    row.solve_seconds = to_tolerance.seconds;
    if (to_tolerance.status == SolveStatus::converged) row.time_to_solution = row.setup_seconds + row.solve_seconds;
}

/// An AMG preconditioner's V-cycle, level by level (median of 20), in row and the log.
template <typename V>
void time_amg_cycle(const AmgPreconditioner<V>& amg, const Array<V>& b, SolverBenchRow& row)
{
    Array<V> z(b.executor(), b.size());
    row.amg_cycle = nlohmann::json::array();
    std::string lines;
    for (const AmgCyclePhase& p : amg.time_cycle(b, z, 20)) {
        row.amg_cycle.push_back({{"level", p.level}, {"phase", p.phase}, {"seconds", p.seconds}});
        lines += fmt::format("\n  level {} {:<13} {:>9.1f} us", p.level, p.phase, p.seconds * 1e6);
    }
    spdlog::info("{} V-cycle, {} levels (median of 20):{}", amg.name(), amg.levels().size(), lines);
}

/// time_amg_cycle of m when it is an AMG hierarchy, or a float cycle of one (timed on the
/// right-hand side rounded to float).
template <typename V>
void time_any_amg_cycle(const Preconditioner<V>* m, const Array<V>& b, SolverBenchRow& row)
{
    if (const auto* amg = dynamic_cast<const AmgPreconditioner<V>*>(m)) {
        time_amg_cycle(*amg, b, row);
        return;
    }
    if constexpr (std::is_same_v<V, double>)
        if (const auto* in_float = dynamic_cast<const FloatCycle*>(m))
            if (const auto* amg = dynamic_cast<const AmgPreconditioner<float>*>(&in_float->inner()))
                time_amg_cycle(*amg, converted<float>(b), row);
}

/// What per-SpMV events cost the merged solvers (both without graph), in percent.
template <typename V>
double timing_overhead_percent(const BenchSolves<V>& run)
{
    SolveOptions off = run.options, on = run.options;
    off.graph = on.graph = GraphMode::off;
    on.time_spmv = true;
    const Timed t_off = run.median_of(off, run.long_run);
    const Timed t_on = run.median_of(on, run.long_run);
    return 100.0 * (t_on.seconds - t_off.seconds) / t_off.seconds;
}

template <typename V>
SolverBenchRow measure(const std::string& format, KrylovMethod method, const PreconditionerEntry& pre,
                       KrylovVariant variant, const DiscreteSystem<V>& system, const Array<V>& b,
                       const CaseSpec& spec, const SolverBenchOptions& bench, double copy_bw)
{
    const LinearOperator<V>& a = *system.op.op;
    SolverBenchRow row;
    row.format = format;
    row.method = method_name(method);
    row.preconditioner = pre.name;
    row.variant = variant_name(variant);
    SolveOptions options = solve_options(spec.solver);
    options.time_spmv = false;
    const SetUpPreconditioner<V> preconditioner = timed_setup(pre, system, spec, row);
    const Preconditioner<V>* m = preconditioner.preconditioner.get();
    const BenchSolves<V> run{method, variant, a, m, b, options, bench.iterations, std::max(5, bench.iterations / 4),
                             bench.repeats};
    time_iterations(run, row);
    time_phases(run, copy_bw, row);
    time_to_solution(run, spec.solver, row);
    // The numeric setup alone (the same values here), where the preconditioner can update.
    if (Preconditioner<V>* kept = preconditioner.preconditioner.get(); kept && kept->update(a, system.preconditioner_matrix()))
        row.update_seconds = kept->update_seconds();
    if (variant == KrylovVariant::merged) {  // the same for both variants
        time_any_amg_cycle(m, b, row);
        row.timing_overhead_percent = timing_overhead_percent(run);
    }
    return row;
}

std::string table(const std::vector<SolverBenchRow>& rows)
{
    std::string s = fmt::format(
        "{:<14} {:<9} {:<7} {:<16} {:>5} {:>10} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>8} {:>8}\n",
        "format", "method", "precond", "variant", "graph", "us/iter", "SpMV us", "vector us",
        "reduce us", "MB/iter", "GB/s", "% copy", "speedup", "timing%");
    for (const auto& r : rows) {
        if (!r.error.empty() && r.seconds_per_iteration == 0) {
            s += fmt::format("{:<14} {:<9} {:<7} {:<16} {}\n", r.format, r.method,
                             r.preconditioner, r.variant, r.error);
            continue;
        }
        s += fmt::format(
            "{:<14} {:<9} {:<7} {:<16} {:>5} {:>10.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>8.1f} "
            "{:>7.1f} {:>8} {:>8}{}\n",
            r.format, r.method, r.preconditioner, r.variant + (r.resident ? "+res" : r.fused_direction ? "+dir" : r.fused_dot ? "+dot" : ""),
            r.graph ? "yes" : "no", r.seconds_per_iteration * 1e6, r.spmv_seconds * 1e6, r.vector_seconds * 1e6,
            r.reduction_seconds * 1e6, r.bytes_per_iteration * 1e-6, r.gbps, r.percent_of_copy,
            r.variant != "reference" ? fmt::format("{:.2f}x", r.speedup) : "",
            r.variant == "merged" ? fmt::format("{:+.1f}", r.timing_overhead_percent) : "",
            r.error.empty() ? "" : "  (" + r.error + ")");
    }
    return s;
}

/// The second table: setup, iterations and time to the case's tolerance.
std::string solution_table(const std::vector<SolverBenchRow>& rows, double tolerance)
{
    std::string s = fmt::format("time to solution (tolerance {:.0e}, from x = 0):\n"
                                "{:<14} {:<9} {:<7} {:<16} {:>10} {:>10} {:>7} {:>10} {:>12}\n",
                                tolerance, "format", "method", "precond", "variant", "setup s",
                                "update s", "iters", "solve s", "total s");
    for (const auto& r : rows) {
        if (!r.error.empty() && r.seconds_per_iteration == 0) continue;
        s += fmt::format("{:<14} {:<9} {:<7} {:<16} {:>10.4f} {:>10} {:>7} {:>10.4f} {:>12}\n", r.format,
                         r.method, r.preconditioner, r.variant, r.setup_seconds,
                         r.update_seconds > 0 ? fmt::format("{:.4f}", r.update_seconds) : std::string("-"),
                         r.iterations_to_tolerance, r.solve_seconds,
                         r.time_to_solution > 0 ? fmt::format("{:.4f}", r.time_to_solution)
                                                : std::string("not reached"));
    }
    return s;
}

std::string csv(const std::vector<SolverBenchRow>& rows)
{
    std::string s = "format,method,preconditioner,variant,graph,fused_dot,seconds_per_iteration,spmv_seconds,"
                    "vector_seconds,reduction_seconds,bytes_per_iteration,GBps,percent_of_copy,"
                    "speedup,timing_overhead_percent,setup_seconds,update_seconds,iterations_to_tolerance,"
                    "solve_seconds,time_to_solution,error\n";
    for (const auto& r : rows)
        s += fmt::format("{},{},{},{},{},{},{:.6e},{:.6e},{:.6e},{:.6e},{},{:.2f},{:.2f},{:.3f},{:.2f},"
                         "{:.6e},{:.6e},{},{:.6e},{:.6e},\"{}\"\n",
                         r.format, r.method, r.preconditioner, r.variant, r.graph, r.fused_dot,
                         r.seconds_per_iteration, r.spmv_seconds, r.vector_seconds,
                         r.reduction_seconds, r.bytes_per_iteration, r.gbps, r.percent_of_copy,
                         r.speedup, r.timing_overhead_percent, r.setup_seconds, r.update_seconds,
                         r.iterations_to_tolerance, r.solve_seconds, r.time_to_solution, r.error);
    return s;
}

nlohmann::json row_json(const SolverBenchRow& r)
{
    return {{"format", r.format},
            {"method", r.method},
            {"preconditioner", r.preconditioner},
            {"variant", r.variant},
            {"graph", r.graph},
            {"fused_dot", r.fused_dot},
            {"fused_direction", r.fused_direction},
            {"resident_cg", r.resident},
            {"seconds_per_iteration", r.seconds_per_iteration},
            {"spmv_seconds", r.spmv_seconds},
            {"vector_seconds", r.vector_seconds},
            {"reduction_seconds", r.reduction_seconds},
            {"bytes_per_iteration", r.bytes_per_iteration},
            {"GBps", r.gbps},
            {"percent_of_copy", r.percent_of_copy},
            {"speedup", r.speedup},
            {"setup_seconds", r.setup_seconds},
            {"update_seconds", r.update_seconds},
            {"iterations_to_tolerance", r.iterations_to_tolerance},
            {"solve_seconds", r.solve_seconds},
            {"time_to_solution", r.time_to_solution},
            {"amg_cycle", r.amg_cycle.is_null() ? nlohmann::json::array() : r.amg_cycle},
            {"timing_overhead_percent", r.timing_overhead_percent},
            {"error", r.error}};
}

/// The methods and preconditioners a run measures, parsed once.
struct BenchChoices {
    std::vector<BenchFormat> formats;
    std::vector<KrylovMethod> methods;
    std::vector<const PreconditionerEntry*> preconditioners;
};

BenchChoices bench_choices(const CaseSpec& spec, const SolverBenchOptions& bench, Backend backend)
{
    BenchChoices c;
    // format: auto benches every format it would try.
    std::vector<std::string> names = bench.formats;
    if (names.empty() && spec.format == auto_format_name)
        for (const FormatEntry* entry : auto_format_candidates(backend)) names.push_back(entry->name);
    if (names.empty()) names.push_back(spec.format);
    c.formats = bench_formats(names, spec.format_options, backend);
    for (const auto& m : bench.methods) c.methods.push_back(parse_method(m));
    if (c.methods.empty()) {
        if (spec.problem.convection.empty()) c.methods.push_back(KrylovMethod::cg);
        c.methods.push_back(KrylovMethod::bicgstab);
    }
    for (const auto& p : bench.preconditioners) c.preconditioners.push_back(&preconditioner_registry().at(p));
    if (c.preconditioners.empty()) c.preconditioners.push_back(spec.solver.preconditioner);
    return c;
}

/// Reference and merged (and CG's single reduction) of every method and preconditioner on one
/// built format.
template <typename V>
void bench_format(const std::string& label, const DiscreteSystem<V>& system,
                  const BenchChoices& choices, const CaseSpec& spec,
                  const SolverBenchOptions& bench, double copy_bw, std::vector<SolverBenchRow>& rows)
{
    const Array<V> b = reordered(system.op, system.rhs, false);
    for (KrylovMethod method : choices.methods)
        for (const PreconditionerEntry* pre : choices.preconditioners) {
            SolverBenchRow reference;
            std::vector<KrylovVariant> variants{KrylovVariant::reference, KrylovVariant::merged};
            if (method == KrylovMethod::cg) variants.push_back(KrylovVariant::single_reduction);
            for (KrylovVariant variant : variants) {
                spdlog::info("{} {} {} {}", label, method_name(method), pre->name,
                             variant_name(variant));
                SolverBenchRow row;
                try {
                    row = measure<V>(label, method, *pre, variant, system, b, spec, bench, copy_bw);
                } catch (const std::exception& e) {
                    row.format = label;
                    row.method = method_name(method);
                    row.preconditioner = pre->name;
                    row.variant = variant_name(variant);
                    row.error = e.what();
                }
                if (variant == KrylovVariant::reference) {
                    row.speedup = 1;
                    reference = row;
                } else if (row.seconds_per_iteration > 0) {
                    row.speedup = reference.seconds_per_iteration / row.seconds_per_iteration;
                }
                rows.push_back(row);
            }
        }
}

template <typename V>
std::vector<SolverBenchRow> bench_system(const CaseSpec& spec, const BenchChoices& choices,
                                         const SolverBenchOptions& bench, const ExecPtr& exec,
                                         const CaseMesh& input, double copy_bw)
{
    const auto disc = make_discretisation<V>(spec, input);
    std::optional<LinearSystem<V>> assembled;  // assembled once, converted for each format
    std::vector<SolverBenchRow> rows;
    bool keep_matrix = false, element_operators = false;
    for (const PreconditionerEntry* pre : choices.preconditioners) {
        keep_matrix = keep_matrix || pre->needs.assembled_matrix;
        element_operators = element_operators || pre->needs.element_operators;
    }
    for (const BenchFormat& format : choices.formats) {
        std::optional<DiscreteSystem<V>> system;
        try {
            if (format.choice.matrix_free()) {
                system.emplace(
                    build_system(exec, *disc, format.choice, format.options, keep_matrix));
            } else {
                format.choice.entry().require(exec->backend());
                if (!assembled) assembled.emplace(disc->assemble(exec));
                LinearSystem<V> copy;
                if (assembled->wide_matrix) copy.wide_matrix = assembled->wide_matrix->clone_to(exec);
                else copy.matrix = assembled->matrix.clone_to(exec);
                copy.rhs = assembled->rhs.clone_to(exec);
                copy.initial_guess = assembled->initial_guess.clone_to(exec);
                copy.dirichlet_count = assembled->dirichlet_count;
                copy.times = assembled->times;
                system.emplace(convert_system(std::move(copy), *format.choice.format, format.options,
                                              keep_matrix));
            }
        } catch (const std::exception& refused) {
            SolverBenchRow row;
            row.format = format.label;
            row.error = refused.what();
            rows.push_back(row);
            spdlog::warn("format {}: {}", format.label, refused.what());
            continue;
        }
        // 64-bit offsets keep no CSR for pmg's products: its coarse operators from the elements.
        system->discretisation = disc.get();
        system->coarse_from_elements = element_operators && system->wide_offsets && disc->has_pmg_coarse_operators();
        bench_format(format.label, *system, choices, spec, bench, copy_bw, rows);
    }
    return rows;
}

}  // namespace

std::vector<SolverBenchRow> run_solver_bench(const CaseSpec& spec, const SolverBenchOptions& options)
{
    if (is_sweep(spec))
        throw std::invalid_argument("bench solver: the case lists several degrees, refinements or kappas; "
                                    "pick one with --set degree=N --set mesh.refine=M --set problem.kappa=...");
    if (options.iterations < 20) throw std::invalid_argument("bench solver: --iterations must be >= 20");
    if (options.repeats < 1) throw std::invalid_argument("bench solver: --repeats must be >= 1");
    RunOptions run_options;
    run_options.output_dir = options.output_dir;
    const std::filesystem::path folder = output_folder(spec, run_options);
    const ExecPtr exec = make_executor(spec.backend);
    const std::string backend = backend_name(exec->backend());
    const BenchChoices choices = bench_choices(spec, options, exec->backend());
    const double copy_bw = measure_copy_bandwidth(exec);
    const CaseMesh loaded = load_case_mesh(spec);
    const Mesh& mesh = loaded.mesh;
    const std::vector<SolverBenchRow> rows =
        spec.precision == Precision::float32
            ? bench_system<float>(spec, choices, options, exec, loaded, copy_bw)
            : bench_system<double>(spec, choices, options, exec, loaded, copy_bw);

    const std::string header = fmt::format(
        "Solver benchmark: {} ({}), {}, {} unknowns, {}, device {}; copy bandwidth (read + "
        "write) {:.1f} GB/s; us/iter: marginal time per iteration between solves of {} and {} "
        "iterations (median of {} each, wall clock, synchronised); split from one solve with "
        "events around every operation; MB/iter: SpMV minimum bytes + the vector traffic model; "
        "timing%: cost of per-SpMV events (graph off)\n",
        spec.name, mesh.source, spec.matrix ? "external system" : fmt::format("degree {}", spec.mesh.degree),
        loaded.external ? static_cast<std::size_t>(loaded.external->matrix.rows)
                        : static_cast<std::size_t>(mesh.num_nodes()),
        precision_name(spec.precision),
        exec->device_name(),
        copy_bw * 1e-9, std::max(5, options.iterations / 4), options.iterations, options.repeats);
    fmt::print("{}{}\n{}", header, table(rows), solution_table(rows, spec.solver.tolerance));
    std::fflush(stdout);

    nlohmann::json json = {{"case", spec.resolved},
                           {"device", exec->device_name()},
                           {"backend", backend},
                           {"precision", precision_name(spec.precision)},
                           {"unknowns", loaded.external ? loaded.external->matrix.rows : mesh.num_nodes()},
                           {"copy_bandwidth_GBps", copy_bw * 1e-9},
                           {"iterations", options.iterations},
                           {"repeats", options.repeats},
                           {"rows", nlohmann::json::array()}};
    for (const auto& r : rows) json["rows"].push_back(row_json(r));
    StagedOutputs outputs(folder);
    outputs.write_text("bench_solver.csv", csv(rows));
    outputs.write_text("bench_solver.json", json.dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote bench_solver.csv, bench_solver.json to {}", outputs.dir().string());
    return rows;
}

}  // namespace gpufem
