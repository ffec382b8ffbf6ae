// `gpufem bench spmv | solver | mtx`: the benchmarks, each a table and CSV/JSON files.
#include <functional>
#include <memory>

#include <spdlog/spdlog.h>

#include "linalg/host_threads.hpp"
#include "solver/bench/bench_matrix_market.hpp"
#include "solver/bench/bench_ranks.hpp"
#include "solver/bench/bench_solver.hpp"
#include "solver/bench/bench_solver_ranks.hpp"
#include "solver/bench/bench_spmv.hpp"
#include "solver/cli/command.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// The log pattern of the benchmarks (time stamps to the millisecond).
void set_bench_log_pattern() { spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v"); }

/// A benchmark of a case: the case read (with --backend), passively waiting threads for a run
/// on the CPU, then bench(spec); errors reported as every command reports them.
int run_case_bench(CommandContext& context, const std::string& case_file, const std::vector<std::string>& overrides,
                   const std::function<void(const CaseSpec&)>& bench)
{
    set_bench_log_pattern();
    return run_reporting_errors([&]() -> int {
        const CaseSpec spec = parse_with_backend(case_file, overrides, context.backend);
        if (solves_on_cpu(spec)) prefer_passive_thread_wait(context);
        bench(spec);
        return exit_ok;
    });
}

/// What `gpufem bench spmv` was given.
struct SpmvArguments {
    SpmvBenchOptions options;
    std::string case_file, output, formats;
    std::vector<std::string> overrides;
};

Command add_spmv(CLI::App& bench, CommandContext& context)
{
    auto args = std::make_shared<SpmvArguments>();
    CLI::App* sub = bench.add_subcommand(
        "spmv", "Every sparse format on the case's matrix: bytes, conversion time, SpMV time "
                "(median, CUDA events), GFLOP/s, GB/s, % of the measured copy bandwidth, speedup "
                "over cuSPARSE, break-even SpMVs; writes bench_spmv.csv and bench_spmv.json. Under "
                "mpirun: the case's format across the ranks, per rank the local block, the halo, the "
                "ghost columns, the overlapped product and the all-reduce; writes bench_ranks.json");
    sub->add_option("case", args->case_file, "The YAML case file")->required();
    sub->add_option("-f,--formats", args->formats, "Comma-separated formats (default: all the backend offers)");
    sub->add_option("-n,--repeats", args->options.repeats, "Timed SpMVs per format (>= 50)")
        ->check(CLI::Range(50, 1000000));
    sub->add_option("-w,--warmup", args->options.warmup, "Untimed SpMVs before timing")->check(CLI::Range(0, 1000000));
    sub->add_option("--cg-iterations", args->options.cg_iterations,
                    "Iterations of the merged-CG column (CG it/s); 0 leaves it out")
        ->check(CLI::Range(0, 1000000));
    sub->add_option("-o,--output", args->output, "Output folder (default: next to the case)");
    sub->add_option("-b,--backend", context.backend, "auto | cpu | cuda")->check(CLI::IsMember(context.backend_names));
    sub->add_option("-s,--set", args->overrides, "Override a case key (as for run)");
    sub->add_flag("--csr-sweep", args->options.csr_sweep,
                  "Instead of the formats: time every csr coop x repeat x block combination "
                  "and compare the fixed rule and the tuner with the best (Reguly & Giles 2012); cuda "
                  "backend only; writes csr_sweep.csv and csr_sweep.json");
    sub->add_flag("--staircase-sweep", args->options.staircase_sweep,
                  "Instead of the formats: Wikberg 2025's experiments on the case's matrix: staircase over "
                  "alpha x slice height (32-1024, blocks of slice-height threads) with and without "
                  "Cuthill-McKee order, cuSPARSE SELL on the same row order, the row-length histogram; "
                  "cuda backend only; writes staircase_sweep.csv, .json and .txt");
    return {sub, [args, &context] {
                args->options.formats = split_list(args->formats);
                args->options.output_dir = args->output;
                if (several_ranks())
                    return as_rank({args->case_file, args->overrides, args->output, ""}, context,
                                   [&](const CaseSpec& spec, const RankGroup& group) {
                                       run_rank_spmv_bench(spec, args->options, group);
                                       return exit_ok;
                                   });
                return run_case_bench(context, args->case_file, args->overrides,
                                      [&](const CaseSpec& spec) { run_spmv_bench(spec, args->options); });
            }};
}

/// What `gpufem bench solver` was given.
struct SolverArguments {
    SolverBenchOptions options;
    std::string case_file, output, formats, methods, preconditioners;
    std::vector<std::string> overrides;
};

Command add_solver(CLI::App& bench, CommandContext& context)
{
    auto args = std::make_shared<SolverArguments>();
    CLI::App* sub = bench.add_subcommand(
        "solver", "CG and BiCGSTAB, reference and merged (and CG's single reduction), on the case's system: time per "
                  "iteration and its split (SpMV, vector updates, reductions), bytes per iteration "
                  "(traffic model), GB/s, % of the measured copy bandwidth, speedup of merged over "
                  "reference, cost of per-SpMV timing; writes bench_solver.csv and .json");
    sub->add_option("case", args->case_file, "The YAML case file")->required();
    sub->add_option("-f,--formats", args->formats, "Comma-separated formats (default: the case's format)");
    sub->add_option("-m,--methods", args->methods,
                    "Comma-separated methods: cg,bicgstab (default: both; bicgstab only with convection)");
    sub->add_option("-p,--preconditioners", args->preconditioners,
                    "Comma-separated: " + preconditioner_registry().joined_names(",") + " (default: the case's)");
    sub->add_option("-i,--iterations", args->options.iterations,
                    "Iterations of the longer timed solve (>= 20, default 200)")
        ->check(CLI::Range(20, 100000000));
    sub->add_option("-n,--repeats", args->options.repeats, "Timed solves per length (median, default 5)")
        ->check(CLI::Range(1, 100000));
    sub->add_option("-o,--output", args->output, "Output folder (default: next to the case)");
    sub->add_option("-b,--backend", context.backend, "auto | cpu | cuda")->check(CLI::IsMember(context.backend_names));
    sub->add_option("-s,--set", args->overrides, "Override a case key (as for run)");
    return {sub, [args, &context] {
                args->options.formats = split_list(args->formats);
                args->options.methods = split_list(args->methods);
                args->options.preconditioners = split_list(args->preconditioners);
                args->options.output_dir = args->output;
                if (several_ranks())
                    return as_rank({args->case_file, args->overrides, args->output, ""}, context,
                                   [&](const CaseSpec& spec, const RankGroup& group) {
                                       run_rank_solver_bench(spec, args->options, group);
                                       return exit_ok;
                                   });
                return run_case_bench(context, args->case_file, args->overrides,
                                      [&](const CaseSpec& spec) { run_solver_bench(spec, args->options); });
            }};
}

Command add_mtx(CLI::App& bench, CommandContext& context)
{
    auto options = std::make_shared<MatrixMarketBenchOptions>();
    CLI::App* sub = bench.add_subcommand(
        "mtx", "Matrix Market reading and writing speed (MB/s of text) with 1 thread and all "
               "threads, on a file or on a generated 7-point matrix");
    sub->add_option("--file", options->file, "A Matrix Market file to read (default: generate one)");
    sub->add_option("--rows", options->rows, "Rows of the generated matrix (default 2,000,000)")
        ->check(CLI::Range(1LL, 2000000000LL));
    sub->add_option("-n,--repeats", options->repeats, "Timed reads per thread count (median, default 5)")
        ->check(CLI::Range(1, 1000));
    sub->add_option("-o,--output", options->work_dir, "Where the written file goes (default: the temp folder)");
    return {sub, [options, &context] {
                set_bench_log_pattern();
                prefer_passive_thread_wait(context);
                return run_reporting_errors([&]() -> int {
                    run_matrix_market_bench(*options);  // prints its table
                    return exit_ok;
                });
            }};
}

}  // namespace

std::vector<Command> add_bench_commands(CLI::App& bench, CommandContext& context)
{
    return {add_spmv(bench, context), add_solver(bench, context), add_mtx(bench, context)};
}

}  // namespace gpufem
