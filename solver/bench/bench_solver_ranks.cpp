#include "solver/bench/bench_solver_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "linalg/blas1.hpp"
#include "linalg/interval_timer.hpp"
#include "linalg/rank_messages.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/krylov/krylov.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/part_spaces.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// The solves one rank times: the case's method on its rows with the other ranks'.
template <typename V>
struct RankSolves {
    const CaseSpec& spec;
    const DistributedSystem<V>& system;
    const Preconditioner<V>* m;
    const RankGroup& group;

    /// Wall seconds of a solve of `iterations` iterations from x = 0, every rank starting
    /// together (the iterations it ran in ran).
    double once(SolveOptions options, int iterations, int& ran) const
    {
        Array<V> x(group.exec, system.rhs.size());
        fill(x, V(0));
        options.max_iterations = iterations;
        options.tolerance = 1e-300;  // the full count unless the method breaks down
        group.exec->synchronize();
        any_rank(group.host, false);  // a barrier
        const auto start = std::chrono::steady_clock::now();
        const SolveResult r = solve(spec.solver.method, spec.solver.variant, *system.op, system.rhs, x, options, m,
                                    group.device);
        group.exec->synchronize();
        ran = r.iterations;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    /// The median of repeats such solves.
    double median_of(const SolveOptions& options, int iterations, int repeats, int& ran) const
    {
        std::vector<double> seconds;
        for (int i = 0; i < repeats; ++i) seconds.push_back(once(options, iterations, ran));
        return median(seconds);
    }
};

/// This rank's row.
template <typename V>
RankSolverRow measure_rank(const RankSolves<V>& run, const SolverBenchOptions& bench)
{
    const SolveOptions options = solve_options(run.spec.solver);
    RankSolverRow row;
    row.rank = run.group.host.rank();
    row.owned = run.system.op->rows();
    int warm = 0, long_its = 0, short_its = 0;
    run.once(options, std::min(bench.iterations, 30), warm);
    const double t_long = run.median_of(options, bench.iterations, bench.repeats, long_its);
    const double t_short = run.median_of(options, bench.iterations / 4, bench.repeats, short_its);
    row.iterations = long_its;
    row.seconds_per_iteration = seconds_per_iteration(t_long, long_its, t_short, short_its);
    row.solve_seconds_per_iteration = t_long / std::max(1, long_its);
    const auto spmv = make_interval_timer(run.group.exec), vector = make_interval_timer(run.group.exec),
               reduction = make_interval_timer(run.group.exec);
    const SolverPhaseTimers phases{spmv.get(), vector.get(), reduction.get()};
    SolveOptions phased = options;
    phased.phases = &phases;
    phased.graph = GraphMode::off;  // events between the phases
    int phased_its = 0;
    run.once(phased, bench.iterations / 4, phased_its);
    const double its = std::max(1, phased_its);
    row.spmv_seconds = total(spmv->seconds()) / its;
    row.vector_seconds = total(vector->seconds()) / its;
    row.reduction_seconds = total(reduction->seconds()) / its;
    Array<double> sums = Array<double>::from_host(run.group.exec, std::vector<double>{1.0, 2.0, 3.0});
    auto timer = make_interval_timer(run.group.exec);
    any_rank(run.group.host, false);
    for (int i = 0; i < 50; ++i) {
        timer->start();
        run.group.device.all_reduce_sum(*run.group.exec, sums.data(), 3);
        timer->stop();
    }
    row.all_reduce_seconds = median(timer->seconds());
    return row;
}

/// The figures of a row, in the order row_of reads them.
std::vector<double> figures_of(const RankSolverRow& r)
{
    return {static_cast<double>(r.owned), static_cast<double>(r.iterations), r.seconds_per_iteration,
            r.spmv_seconds, r.vector_seconds, r.reduction_seconds, r.all_reduce_seconds,
            r.solve_seconds_per_iteration};
}

RankSolverRow row_of(const double* f, int rank)
{
    RankSolverRow r;
    r.rank = rank;
    r.owned = static_cast<long long>(f[0]), r.iterations = static_cast<int>(f[1]);
    r.seconds_per_iteration = f[2], r.spmv_seconds = f[3], r.vector_seconds = f[4];
    r.reduction_seconds = f[5], r.all_reduce_seconds = f[6], r.solve_seconds_per_iteration = f[7];
    return r;
}

std::string table_line(const std::string& label, const RankSolverRow& r)
{
    return fmt::format("{:>8} {:>11} {:>6} {:>10.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f}\n", label, r.owned,
                       r.iterations, r.seconds_per_iteration * 1e6, r.spmv_seconds * 1e6, r.vector_seconds * 1e6,
                       r.reduction_seconds * 1e6, r.all_reduce_seconds * 1e6);
}

/// Prints the table (slowest: each column's largest, and the mean) and writes
/// bench_solver_ranks.json.
void report_rows(const CaseSpec& spec, const SolverBenchOptions& options, const RankGroup& group,
                 const std::vector<RankSolverRow>& rows)
{
    const std::size_t n = figures_of(rows.front()).size();
    std::vector<double> most(n, 0.0), mean(n, 0.0);
    for (const RankSolverRow& r : rows) {
        const std::vector<double> f = figures_of(r);
        for (std::size_t k = 0; k < n; ++k) most[k] = std::max(most[k], f[k]), mean[k] += f[k] / rows.size();
    }
    std::string text = fmt::format("{} ({}, preconditioner {}) across {} ranks ({}): {} and {} iterations, median "
                                   "of {} solves; split from a solve with {}\n",
                                   method_name(spec.solver.method), variant_name(spec.solver.variant),
                                   spec.solver.preconditioner->name, rows.size(), group.device.describe(),
                                   options.iterations, options.iterations / 4, options.repeats,
                                   make_interval_timer(group.exec)->clock());
    text += fmt::format("{:>8} {:>11} {:>6} {:>10} {:>9} {:>9} {:>9} {:>9}\n", "rank", "owned rows", "its",
                        "us / it", "spmv us", "vector", "reduce", "sum3 us");
    nlohmann::json json = {{"ranks", rows.size()}, {"communicator", group.device.describe()}};
    for (const RankSolverRow& r : rows) {
        text += table_line(std::to_string(r.rank), r);
        json["per_rank"].push_back({{"rank", r.rank}, {"owned_rows", r.owned}, {"iterations", r.iterations},
                                    {"seconds_per_iteration", r.seconds_per_iteration},
                                    {"solve_seconds_per_iteration", r.solve_seconds_per_iteration},
                                    {"spmv_seconds", r.spmv_seconds}, {"vector_seconds", r.vector_seconds},
                                    {"reduction_seconds", r.reduction_seconds},
                                    {"all_reduce_seconds", r.all_reduce_seconds}});
    }
    text += table_line("slowest", row_of(most.data(), 0)) + table_line("mean", row_of(mean.data(), 0));
    std::cout << text;
    write_bench_file(spec, options.output_dir, "bench_solver_ranks.json", json.dump(2) + "\n");
}

template <typename V>
std::vector<RankSolverRow> bench_ranks(const CaseSpec& spec, const SolverBenchOptions& options, const RankGroup& group)
{
    const PartPayload part = part_of_rank(spec, group);
    const DistributedSystem<V> system = build_distributed_system<V>(group.exec, part, spec, group.device);
    const std::vector<PartSpace<V>> spaces =
        preconditioner_spaces<V>(spec, part, system.permutation, group.exec, group.host);
    const SetUpPreconditioner<V> m = distributed_preconditioner(spec, system, group.host, group.device, &spaces);
    const RankSolverRow mine = measure_rank(RankSolves<V>{spec, system, m.preconditioner.get(), group}, options);
    const std::vector<double> figures = figures_of(mine);
    const std::vector<double> all = gather_on_every_rank(group.host, figures);
    std::vector<RankSolverRow> rows;
    for (std::size_t at = 0; at < all.size(); at += figures.size())
        rows.push_back(row_of(&all[at], static_cast<int>(at / figures.size())));
    if (group.host.rank() == 0) report_rows(spec, options, group, rows);
    return rows;
}

}  // namespace

std::vector<RankSolverRow> run_rank_solver_bench(const CaseSpec& spec, const SolverBenchOptions& options,
                                                 const RankGroup& group)
{
    if (!options.formats.empty() || !options.methods.empty() || !options.preconditioners.empty())
        throw StoppedOnEveryRank("bench solver under mpirun times the case's method, preconditioner and format "
                                 "across the ranks; leave out --formats, --methods and --preconditioners (set them "
                                 "with --set solver.method=..., --set format=...)",
                                 group.host.rank() == 0);
    return spec.precision == Precision::float32 ? bench_ranks<float>(spec, options, group)
                                                : bench_ranks<double>(spec, options, group);
}

}  // namespace gpufem
