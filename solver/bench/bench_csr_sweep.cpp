#include "solver/bench/bench_csr_sweep.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/array.hpp"
#include "linalg/csr_kernels.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "linalg/interval_timer.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/run/output_files.hpp"

namespace gpufem {
namespace {

constexpr int sweep_max_repeat = 64;
constexpr int sweep_max_warmup = 5;
constexpr int coops[] = {1, 2, 4, 8, 16, 32};

/// The paper's figures (Reguly & Giles 2012, §6).
constexpr double paper_fixed_rule_training = 84.0;  ///< % of optimum, 15 training matrices
constexpr double paper_fixed_rule_all = 73.0;       ///< % of optimum, all 44 test matrices
constexpr double paper_tuner_within = 2.0;          ///< % from the exhaustive search

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

/// Median time of `repeats` SpMVs with parameters p after `warmup` untimed ones, x rotated
/// over xs: the method of bench spmv's format rows (IntervalTimer: CUDA events in the stream).
template <typename V>
double time_params(const ExecPtr& exec, const CsrParams& p, const Csr<V>& a,
                   const std::vector<Array<V>>& xs, Array<V>& y, int warmup, int repeats)
{
    for (int i = 0; i < warmup; ++i)
        kernels::cuda::csr_spmv_params(*exec, p, a, V(1), xs[i % xs.size()].data(), V(0), y.data());
    auto timer = make_interval_timer(exec);
    for (int i = 0; i < repeats; ++i) {
        timer->start();
        kernels::cuda::csr_spmv_params(*exec, p, a, V(1), xs[i % xs.size()].data(), V(0), y.data());
        timer->stop();
    }
    return median(timer->seconds());
}

/// 1 + the number of sweep combinations strictly faster than seconds.
int rank_of(const std::vector<CsrSweepTiming>& sorted, double seconds)
{
    const auto faster = std::lower_bound(sorted.begin(), sorted.end(), seconds,
                                         [](const CsrSweepTiming& t, double s) { return t.median_seconds < s; });
    return static_cast<int>(faster - sorted.begin()) + 1;
}

/// The sweep's timing of p, or p timed on its own when it lies outside the sweep's space.
template <typename V>
CsrSweepTiming find_or_time(const CsrSweepResult& r, const CsrParams& p, const ExecPtr& exec,
                            const Csr<V>& a, const std::vector<Array<V>>& xs, Array<V>& y)
{
    for (const CsrSweepTiming& t : r.combinations)
        if (t.params == p) return t;
    CsrSweepTiming t;
    t.params = p;
    t.grid = csr_grid_size(a.rows, p);
    t.median_seconds = time_params(exec, p, a, xs, y, r.warmup, r.repeats);
    t.rank = rank_of(r.combinations, t.median_seconds);
    t.in_sweep = false;
    return t;
}

std::string timing_line(const std::string& label, const CsrSweepTiming& t, const CsrSweepResult& r,
                        double copy_bw)
{
    return fmt::format("{:<10} {:>5} {:>6} {:>5} {:>9} {:>9.2f} {:>8.1f} {:>7.1f} {:>6.1f} {:>9.1f}\n", label,
                       t.params.coop, t.params.repeat, t.params.block, t.grid, t.median_seconds * 1e6,
                       2.0 * r.nnz / t.median_seconds * 1e-9, r.min_bytes / t.median_seconds * 1e-9,
                       100.0 * r.min_bytes / t.median_seconds / copy_bw, r.percent_of_best(t));
}

nlohmann::json timing_json(const CsrSweepTiming& t, const CsrSweepResult& r, double copy_bw)
{
    return {{"coop", t.params.coop},
            {"repeat", t.params.repeat},
            {"block", t.params.block},
            {"grid", t.grid},
            {"spmv_median_seconds", t.median_seconds},
            {"gflops", 2.0 * r.nnz / t.median_seconds * 1e-9},
            {"effective_GBps", r.min_bytes / t.median_seconds * 1e-9},
            {"percent_of_copy", 100.0 * r.min_bytes / t.median_seconds / copy_bw},
            {"percent_of_best", r.percent_of_best(t)},
            {"rank", t.rank},
            {"in_sweep", t.in_sweep}};
}

std::string csv(const CsrSweepResult& r, double copy_bw)
{
    std::string text = "rank,coop,repeat,block,grid,spmv_median_s,gflops,effective_GBps,"
                       "percent_of_copy,percent_of_best,fixed_rule,tuner\n";
    const auto row = [&](const CsrSweepTiming& t) {
        text += fmt::format("{},{},{},{},{},{:.6e},{:.3f},{:.3f},{:.2f},{:.2f},{},{}\n", t.rank,
                            t.params.coop, t.params.repeat, t.params.block, t.grid, t.median_seconds,
                            2.0 * r.nnz / t.median_seconds * 1e-9, r.min_bytes / t.median_seconds * 1e-9,
                            100.0 * r.min_bytes / t.median_seconds / copy_bw, r.percent_of_best(t),
                            int(t.params == r.fixed_rule.params), int(t.params == r.tuner.params));
    };
    for (const CsrSweepTiming& t : r.combinations) row(t);
    // Parameters outside the sweep's space: one more line each, so that the csv holds them.
    if (!r.fixed_rule.in_sweep) row(r.fixed_rule);
    if (!r.paper_rule.in_sweep && !(r.paper_rule.params == r.fixed_rule.params)) row(r.paper_rule);
    if (!r.tuner.in_sweep && !(r.tuner.params == r.fixed_rule.params)) row(r.tuner);
    return text;
}

}  // namespace

std::vector<int> csr_sweep_blocks()
{
    std::vector<int> blocks;
    for (int b = 64; b <= 512; b += 32) blocks.push_back(b);
    return blocks;
}

bool csr_sweep_valid(const CsrParams& p, index_type rows)
{
    const auto blocks = csr_sweep_blocks();
    if (!power_of_two(p.coop) || p.coop > 32) return false;
    if (!power_of_two(p.repeat) || p.repeat > sweep_max_repeat) return false;
    if (std::find(blocks.begin(), blocks.end(), p.block) == blocks.end() || p.block % p.coop != 0)
        return false;
    if (rows <= 0) return false;
    return p.repeat == 1 || static_cast<long long>(p.repeat) * (p.block / p.coop) <= rows;
}

std::vector<CsrParams> csr_sweep_combinations(index_type rows)
{
    std::vector<CsrParams> list;
    for (int coop : coops)
        for (int repeat = 1; repeat <= sweep_max_repeat; repeat *= 2)
            for (int block : csr_sweep_blocks()) {
                const CsrParams p{coop, repeat, block};
                if (csr_sweep_valid(p, rows)) list.push_back(p);
            }
    return list;
}

void require_csr_sweep_backend(const Executor& exec)
{
    if (!exec.is_cuda())
        throw std::invalid_argument(
            "bench spmv --csr-sweep: the CPU backend's csr kernel is the reference loop and ignores "
            "coop, repeat and block, so there is nothing to sweep; run it with --backend cuda on a "
            "GPU");
}

template <typename V>
CsrSweepResult run_csr_sweep(const Csr<V>& matrix, const SpmvBenchOptions& options)
{
    const ExecPtr& exec = matrix.executor();
    require_csr_sweep_backend(*exec);
    CsrSweepResult r;
    r.rows = matrix.rows;
    r.nnz = matrix.nnz();
    r.min_bytes = csr_spmv_min_bytes(matrix, false);
    r.repeats = options.repeats;
    r.warmup = std::min(options.warmup, sweep_max_warmup);
    if (matrix.rows <= 0) throw std::invalid_argument("bench spmv --csr-sweep: the matrix has no rows");
    const std::vector<Array<V>> xs = bench_inputs<V>(exec, matrix.cols);
    r.x_copies = xs.size();
    Array<V> y(exec, matrix.rows);

    const std::vector<CsrParams> list = csr_sweep_combinations(matrix.rows);
    int current_coop = 0;
    for (std::size_t k = 0; k < list.size(); ++k) {
        const CsrParams& p = list[k];
        if (p.coop != current_coop) {
            current_coop = p.coop;
            spdlog::info("csr sweep: coop {} (combination {} of {})", p.coop, k + 1, list.size());
        }
        CsrSweepTiming t;
        t.params = p;
        t.grid = csr_grid_size(matrix.rows, p);
        t.median_seconds = time_params(exec, p, matrix, xs, y, r.warmup, r.repeats);
        r.combinations.push_back(t);
    }
    std::stable_sort(r.combinations.begin(), r.combinations.end(),
                     [](const CsrSweepTiming& a, const CsrSweepTiming& b) { return a.median_seconds < b.median_seconds; });
    for (CsrSweepTiming& t : r.combinations) t.rank = rank_of(r.combinations, t.median_seconds);

    // The operator as a solve uses it: the fixed rule, then the tuner over the first SpMVs.
    CsrTunedOperator<V> op(matrix.clone_to(exec), CsrOptions{});
    const CsrParams fixed = op.params();
    constexpr int max_tuning_spmvs = 10000;
    while (op.tuning() && r.tuner_spmvs < max_tuning_spmvs) {
        op.apply(xs[r.tuner_spmvs % xs.size()], y);
        ++r.tuner_spmvs;
    }
    exec->synchronize();
    if (op.tuning())
        throw std::runtime_error(fmt::format("bench spmv --csr-sweep: the csr tuner did not finish in {} SpMVs",
                                             max_tuning_spmvs));
    r.tuner_description = op.parameters();
    spdlog::info("csr sweep: fixed rule {}; tuner {}", to_string(fixed), r.tuner_description);
    r.fixed_rule = find_or_time(r, fixed, exec, matrix, xs, y);
    r.paper_rule = find_or_time(r, csr_paper_rule(matrix.rows, matrix.nnz(), 16 * std::max(1, exec->compute_units())),
                                exec, matrix, xs, y);
    r.tuner = find_or_time(r, op.params(), exec, matrix, xs, y);
    return r;
}

std::string csr_sweep_report(const CsrSweepResult& r, const std::string& header, double copy_bw)
{
    const auto blocks = csr_sweep_blocks();
    std::string t = header;
    t += fmt::format("{} combinations: coop 1..32 x repeat 1..{} (powers of two; repeat * block / coop <= rows) "
                     "x block {}..{} step 32; median of {} SpMVs after {} warm-up each (CUDA events, x "
                     "rotated over {} copies)\n",
                     r.combinations.size(), sweep_max_repeat, blocks.front(), blocks.back(), r.repeats,
                     r.warmup, r.x_copies);
    t += fmt::format("{:<10} {:>5} {:>6} {:>5} {:>9} {:>9} {:>8} {:>7} {:>6} {:>9}\n", "rank", "coop", "repeat",
                     "block", "grid", "SpMV us", "GFLOP/s", "GB/s", "% copy", "% of best");
    const std::size_t top = std::min<std::size_t>(10, r.combinations.size());
    for (std::size_t k = 0; k < top; ++k)
        t += timing_line(std::to_string(r.combinations[k].rank), r.combinations[k], r, copy_bw);
    t += timing_line("paper rule", r.paper_rule, r, copy_bw);
    t += timing_line("fixed rule", r.fixed_rule, r, copy_bw);
    t += timing_line("tuner", r.tuner, r, copy_bw);
    t += timing_line("slowest", r.combinations.back(), r, copy_bw);
    const auto where = [&](const CsrSweepTiming& x) {
        return x.in_sweep ? fmt::format("rank {} of {}", x.rank, r.combinations.size())
                          : fmt::format("outside the sweep's space, would rank {} of {}", x.rank,
                                        r.combinations.size());
    };
    t += fmt::format("best: {}, {:.2f} us\n", to_string(r.best().params), r.best().median_seconds * 1e6);
    t += fmt::format("paper rule: {}, {}, {:.1f}% of the best (Reguly & Giles 2012: {:.0f}% of the optimum on average over its "
                     "15 training matrices, {:.0f}% over all 44, single precision; similar in double)\n",
                     to_string(r.paper_rule.params), where(r.paper_rule), r.percent_of_best(r.paper_rule),
                     paper_fixed_rule_training, paper_fixed_rule_all);
    t += fmt::format("fixed rule (the operator's start: the paper's coop, repeat 1): {}, {}, {:.1f}% of the best\n",
                     to_string(r.fixed_rule.params), where(r.fixed_rule), r.percent_of_best(r.fixed_rule));
    t += fmt::format("tuner: {}, {}, {:.1f}% of the best after {} SpMVs (Reguly & Giles 2012: within {:.0f}% of the "
                     "exhaustive search, i.e. >= {:.0f}%)\n  {}\n",
                     to_string(r.tuner.params), where(r.tuner), r.percent_of_best(r.tuner), r.tuner_spmvs,
                     paper_tuner_within, 100.0 - paper_tuner_within, r.tuner_description);
    return t;
}

void write_csr_sweep(const CsrSweepResult& r, const std::string& header, const nlohmann::json& context,
                     double copy_bw, const std::filesystem::path& folder)
{
    fmt::print("{}", csr_sweep_report(r, header, copy_bw));
    std::fflush(stdout);
    nlohmann::json json = context;
    json["rows"] = r.rows;
    json["nnz"] = r.nnz;
    json["min_bytes"] = r.min_bytes;
    json["copy_bandwidth_GBps"] = copy_bw * 1e-9;
    json["repeats"] = r.repeats;
    json["warmup_per_combination"] = r.warmup;
    json["coops"] = std::vector<int>(std::begin(coops), std::end(coops));
    json["repeat_max"] = sweep_max_repeat;
    json["blocks"] = csr_sweep_blocks();
    json["combinations_count"] = r.combinations.size();
    json["best"] = timing_json(r.best(), r, copy_bw);
    json["fixed_rule"] = timing_json(r.fixed_rule, r, copy_bw);
    json["paper_rule"] = timing_json(r.paper_rule, r, copy_bw);
    json["tuner"] = timing_json(r.tuner, r, copy_bw);
    json["tuner"]["spmvs"] = r.tuner_spmvs;
    json["tuner"]["description"] = r.tuner_description;
    json["paper"] = {{"fixed_rule_percent_of_optimum_training", paper_fixed_rule_training},
                     {"fixed_rule_percent_of_optimum_all", paper_fixed_rule_all},
                     {"tuner_within_percent_of_optimum", paper_tuner_within},
                     {"source", "Reguly & Giles 2012, section 6: single precision, 15 training / 44 test matrices; "
                                "similar figures in double"}};
    json["combinations"] = nlohmann::json::array();
    for (const CsrSweepTiming& t : r.combinations) json["combinations"].push_back(timing_json(t, r, copy_bw));
    StagedOutputs outputs(folder);
    outputs.write_text("csr_sweep.csv", csv(r, copy_bw));
    outputs.write_text("csr_sweep.json", json.dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote csr_sweep.csv, csr_sweep.json to {}", outputs.dir().string());
}

template CsrSweepResult run_csr_sweep(const Csr<float>&, const SpmvBenchOptions&);
template CsrSweepResult run_csr_sweep(const Csr<double>&, const SpmvBenchOptions&);

}  // namespace gpufem
