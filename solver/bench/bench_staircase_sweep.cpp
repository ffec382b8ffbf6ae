#include "solver/bench/bench_staircase_sweep.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/interval_timer.hpp"
#include "linalg/reordering.hpp"
#include "linalg/sellp.hpp"
#include "linalg/staircase.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/run/output_files.hpp"

namespace gpufem {
namespace {

/// Median seconds of `repeats` applications of op after `warmup`, x rotated over xs.
template <typename V>
double time_operator(const LinearOperator<V>& op, const std::vector<Array<V>>& xs, Array<V>& y,
                     int warmup, int repeats)
{
    for (int i = 0; i < warmup; ++i) op.apply(xs[i % xs.size()], y);
    auto timer = make_interval_timer(op.executor());
    for (int i = 0; i < repeats; ++i) {
        timer->start();
        op.apply(xs[i % xs.size()], y);
        timer->stop();
    }
    return median(timer->seconds());
}

/// How many rows have each length (index: entries in the row), from the row offsets.
std::vector<long long> rows_with_length(const std::vector<index_type>& row_ptr)
{
    std::vector<long long> counts;
    for (std::size_t i = 0; i + 1 < row_ptr.size(); ++i) {
        const auto length = static_cast<std::size_t>(row_ptr[i + 1] - row_ptr[i]);
        if (counts.size() <= length) counts.resize(length + 1, 0);
        ++counts[length];
    }
    return counts;
}

}  // namespace

std::vector<double> staircase_sweep_alphas() { return {0.0, 0.001, 0.01, 0.05, 0.1, 0.2}; }

std::vector<int> staircase_sweep_slice_heights() { return {32, 64, 128, 256, 512, 1024}; }

template <typename V>
StaircaseSweepResult run_staircase_sweep(const Csr<V>& matrix, const SpmvBenchOptions& options, double copy_bw)
{
    const ExecPtr& exec = matrix.executor();
    if (!exec->is_cuda())
        throw std::invalid_argument("bench spmv --staircase-sweep runs on the cuda backend (streams, "
                                    "block sizes and cuSPARSE are what it measures)");
    StaircaseSweepResult r;
    r.rows = matrix.rows;
    r.nnz = matrix.nnz();
    r.repeats = options.repeats;
    r.copy_bw = copy_bw;
    const std::vector<index_type> row_ptr = matrix.row_ptr.to_host();
    r.rows_with_length = rows_with_length(row_ptr);
    const auto xs = bench_inputs<V>(exec, static_cast<std::size_t>(matrix.cols));
    Array<V> y(exec, static_cast<std::size_t>(matrix.rows));
    const auto record = [&](StaircaseSweepRow row, const LinearOperator<V>& op) {
        row.parameters = op.parameters();
        row.min_bytes = op.spmv_min_bytes();
        row.median_seconds = time_operator(op, xs, y, options.warmup, options.repeats);
        row.percent_of_copy = 100.0 * static_cast<double>(row.min_bytes) / row.median_seconds / copy_bw;
        spdlog::info("{} order={} {}: {:.1f} us, {:.1f}% of copy", row.format, row.cuthill_mckee ? "cm" : "none",
                     row.parameters, row.median_seconds * 1e6, row.percent_of_copy);
        r.timings.push_back(std::move(row));
    };
    // The Cuthill-McKee order once: the CM-ordered matrix in the matrix's own order is what the
    // staircase builds from (its sigma sorts that order by length, stably), so every
    // configuration converts it with order none instead of ordering again.
    const std::vector<index_type> col_idx = matrix.col_idx.to_host();
    const Array<index_type> cm_order =
        Array<index_type>::from_host(exec, cuthill_mckee_order(matrix.rows, row_ptr, col_idx, false));
    for (const bool cm : {true, false}) {
        const Csr<V> ordered = cm ? permute_symmetric(matrix, cm_order) : matrix.clone_to(exec);
        const std::vector<index_type> ordered_ptr = ordered.row_ptr.to_host();
        std::vector<index_type> identity(static_cast<std::size_t>(matrix.rows));
        for (index_type k = 0; k < matrix.rows; ++k) identity[static_cast<std::size_t>(k)] = k;
        const Array<index_type> sigma = Array<index_type>::from_host(exec, staircase_row_order(identity, ordered_ptr));
        const Csr<V> by_length = permute_symmetric(ordered, sigma);
        for (const int sh : staircase_sweep_slice_heights()) {
            for (const double alpha : staircase_sweep_alphas()) {
                StaircaseOptions o;
                o.alpha = alpha;
                o.slice_height = sh;
                o.block = sh;
                o.cuthill_mckee = false;  // `ordered` is in CM order already when cm
                const FormatBuild<V> build = build_staircase_format(ordered.clone_to(exec), o);
                record({"staircase", cm, alpha, sh, sh, {}, 0, 0, 0}, *build.op);
            }
            // cuSPARSE's sliced ELL on the staircase's row order (sigma: the order, then rows
            // sorted by length), slices of the same height.
            CusparseSellOptions sell;
            sell.slice = sh;
            const FormatBuild<V> build = build_cusparse_sell_format(by_length.clone_to(exec), sell);
            record({"cusparse-sell", cm, 0.0, sh, 0, {}, 0, 0, 0}, *build.op);
        }
    }
    return r;
}

std::string staircase_sweep_report(const StaircaseSweepResult& r, const std::string& header)
{
    std::string text = header;
    text += "Row lengths (entries per row: rows):";
    for (std::size_t length = 0; length < r.rows_with_length.size(); ++length)
        if (r.rows_with_length[length] > 0)
            text += fmt::format(" {}: {} ({:.2f}%)", length, r.rows_with_length[length],
                                100.0 * double(r.rows_with_length[length]) / std::max<index_type>(r.rows, 1));
    text += "\n";
    const std::vector<double> alphas = staircase_sweep_alphas();
    for (const bool cm : {true, false}) {
        text += fmt::format("\nStaircase SELL, {} order, % of copy bandwidth (time in us), block = slice height; "
                            "cuSPARSE SELL on the same row order\n",
                            cm ? "Cuthill-McKee" : "the matrix's own");
        text += fmt::format("{:>6}", "sh");
        for (double a : alphas) text += fmt::format("{:>17}", fmt::format("alpha {:g}", a));
        text += fmt::format("{:>17}\n", "cusparse-sell");
        for (const int sh : staircase_sweep_slice_heights()) {
            text += fmt::format("{:>6}", sh);
            const auto cell = [&](const std::string& format, double alpha) {
                for (const auto& t : r.timings)
                    if (t.format == format && t.cuthill_mckee == cm && t.slice_height == sh && t.alpha == alpha)
                        return fmt::format("{:>17}", fmt::format("{:.1f} ({:.0f})", t.percent_of_copy, t.median_seconds * 1e6));
                return fmt::format("{:>17}", "-");
            };
            for (double a : alphas) text += cell("staircase", a);
            text += cell("cusparse-sell", 0.0) + "\n";
        }
    }
    const auto best = std::min_element(r.timings.begin(), r.timings.end(), [](const auto& a, const auto& b) {
        return a.median_seconds < b.median_seconds;
    });
    if (best != r.timings.end())
        text += fmt::format("\nfastest: {} order={} {} {:.1f} us, {:.1f}% of copy\n", best->format,
                            best->cuthill_mckee ? "cm" : "none", best->parameters, best->median_seconds * 1e6,
                            best->percent_of_copy);
    return text;
}

void write_staircase_sweep(const StaircaseSweepResult& r, const std::string& header,
                           const nlohmann::json& context, const std::filesystem::path& folder)
{
    const std::string report = staircase_sweep_report(r, header);
    fmt::print("{}", report);
    std::fflush(stdout);
    std::string csv = "format,order,alpha,slice_height,block,min_bytes,median_seconds,percent_of_copy,parameters\n";
    nlohmann::json json = context;
    json["rows"] = r.rows;
    json["nnz"] = r.nnz;
    json["rows_with_length"] = r.rows_with_length;
    json["copy_bandwidth_GBps"] = r.copy_bw * 1e-9;
    json["repeats"] = r.repeats;
    json["timings"] = nlohmann::json::array();
    for (const auto& t : r.timings) {
        csv += fmt::format("{},{},{},{},{},{},{:.9e},{:.2f},\"{}\"\n", t.format, t.cuthill_mckee ? "cm" : "none",
                           t.alpha, t.slice_height, t.block, t.min_bytes, t.median_seconds, t.percent_of_copy,
                           t.parameters);
        json["timings"].push_back({{"format", t.format},
                                   {"order", t.cuthill_mckee ? "cm" : "none"},
                                   {"alpha", t.alpha},
                                   {"slice_height", t.slice_height},
                                   {"block", t.block},
                                   {"parameters", t.parameters},
                                   {"min_bytes", t.min_bytes},
                                   {"median_seconds", t.median_seconds},
                                   {"percent_of_copy", t.percent_of_copy}});
    }
    StagedOutputs outputs(folder);
    outputs.write_text("staircase_sweep.csv", csv);
    outputs.write_text("staircase_sweep.json", json.dump(2) + "\n");
    outputs.write_text("staircase_sweep.txt", report);
    outputs.commit();
    spdlog::info("wrote staircase_sweep.csv, staircase_sweep.json, staircase_sweep.txt to {}", outputs.dir().string());
}

template StaircaseSweepResult run_staircase_sweep(const Csr<float>&, const SpmvBenchOptions&, double);
template StaircaseSweepResult run_staircase_sweep(const Csr<double>&, const SpmvBenchOptions&, double);

}  // namespace gpufem
