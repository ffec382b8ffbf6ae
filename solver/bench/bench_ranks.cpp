#include "solver/bench/bench_ranks.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "linalg/interval_timer.hpp"
#include "linalg/rank_messages.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {

double RankSpmvRow::hidden_share() const
{
    const double serial = local_seconds + halo_seconds + nonlocal_seconds;
    if (halo_seconds <= 0) return 1.0;
    return std::clamp((serial - product_seconds) / halo_seconds, 0.0, 1.0);
}

namespace {

/// The median time of `repeats` calls of work after `warmup` untimed ones, every rank
/// starting together.
template <typename Work>
double timed(const RankGroup& group, const SpmvBenchOptions& options, Work&& work)
{
    for (int i = 0; i < options.warmup; ++i) work(i);
    group.exec->synchronize();
    any_rank(group.host, false);  // a barrier: the ranks start together
    auto timer = make_interval_timer(group.exec);
    for (int i = 0; i < options.repeats; ++i) {
        timer->start();
        work(i);
        timer->stop();
    }
    return median(timer->seconds());
}

/// This rank's row: each part of the product timed on its own, then the whole.
template <typename V>
RankSpmvRow measure_rank(const DistributedSystem<V>& system, const RankGroup& group, const SpmvBenchOptions& options)
{
    const DistributedOperator<V>& op = *system.op;
    const std::vector<Array<V>> xs = bench_inputs<V>(group.exec, static_cast<std::size_t>(op.rows()));
    Array<V> y(group.exec, static_cast<std::size_t>(op.rows()));
    Array<V>& ghosts = op.ghost_values();
    Array<double> sums = Array<double>::from_host(group.exec, std::vector<double>{1.0, 2.0, 3.0});
    RankSpmvRow row;
    row.rank = group.host.rank();
    row.owned = op.rows();
    row.ghosts = static_cast<long long>(ghosts.size());
    row.halo_bytes = op.halo_bytes();
    row.local_bytes = op.local_block().spmv_min_bytes();
    row.copy_bytes_per_second = measure_copy_bandwidth(group.exec);
    const auto x = [&](int i) -> const Array<V>& { return xs[static_cast<std::size_t>(i) % xs.size()]; };
    row.local_seconds = timed(group, options, [&](int i) { op.local_block().apply(x(i), y); });
    row.halo_seconds = timed(group, options, [&](int i) { op.halo().update(x(i), ghosts); });
    row.nonlocal_seconds = timed(group, options, [&](int i) { op.apply_ghost_columns(V(1), x(i), y); });
    row.product_seconds = timed(group, options, [&](int i) { op.apply(x(i), y); });
    row.all_reduce_seconds = timed(group, options, [&](int) { group.device.all_reduce_sum(*group.exec, sums.data(), 3); });
    return row;
}

/// The figures of a row, in the order rows_from_figures reads them.
std::vector<double> row_figures(const RankSpmvRow& r)
{
    return {static_cast<double>(r.owned), static_cast<double>(r.ghosts), static_cast<double>(r.halo_bytes),
            static_cast<double>(r.local_bytes), r.copy_bytes_per_second, r.local_seconds, r.halo_seconds,
            r.nonlocal_seconds, r.product_seconds, r.all_reduce_seconds};
}

std::vector<RankSpmvRow> rows_from_figures(const std::vector<double>& all, std::size_t per_rank)
{
    std::vector<RankSpmvRow> rows;
    for (std::size_t at = 0; at < all.size(); at += per_rank) {
        const double* f = &all[at];
        RankSpmvRow r;
        r.rank = static_cast<int>(at / per_rank);
        r.owned = static_cast<long long>(f[0]), r.ghosts = static_cast<long long>(f[1]);
        r.halo_bytes = static_cast<std::size_t>(f[2]), r.local_bytes = static_cast<std::size_t>(f[3]);
        r.copy_bytes_per_second = f[4], r.local_seconds = f[5], r.halo_seconds = f[6];
        r.nonlocal_seconds = f[7], r.product_seconds = f[8], r.all_reduce_seconds = f[9];
        rows.push_back(r);
    }
    return rows;
}

/// The table line of a row (label: the rank, "slowest" or "mean").
std::string table_line(const std::string& label, const RankSpmvRow& r)
{
    const double percent = r.local_seconds > 0 ? 100.0 * r.local_bytes / r.local_seconds / r.copy_bytes_per_second : 0;
    return fmt::format("{:>8} {:>11} {:>9} {:>9.1f} {:>9.1f} {:>7.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>7.0f} {:>9.1f}\n",
                       label, r.owned, r.ghosts, r.halo_bytes / 1e3, r.local_seconds * 1e6, percent,
                       r.halo_seconds * 1e6, r.nonlocal_seconds * 1e6, r.product_seconds * 1e6,
                       100.0 * r.hidden_share(), r.all_reduce_seconds * 1e6);
}

/// The slowest rank's figure of each column (the largest sizes and times) and their means.
std::pair<RankSpmvRow, RankSpmvRow> slowest_and_mean(const std::vector<RankSpmvRow>& rows)
{
    const std::size_t n = row_figures(rows.front()).size();
    std::vector<double> most(n, 0.0), mean(n, 0.0);
    for (const RankSpmvRow& r : rows) {
        const std::vector<double> f = row_figures(r);
        for (std::size_t k = 0; k < n; ++k) {
            most[k] = std::max(most[k], f[k]);
            mean[k] += f[k] / static_cast<double>(rows.size());
        }
    }
    // The copy bandwidth of the slowest device is the least.
    most[4] = rows.front().copy_bytes_per_second;
    for (const RankSpmvRow& r : rows) most[4] = std::min(most[4], r.copy_bytes_per_second);
    return {rows_from_figures(most, n).front(), rows_from_figures(mean, n).front()};
}

/// Prints the table and writes bench_ranks.json (rank 0).
void report_rows(const CaseSpec& spec, const SpmvBenchOptions& options, const RankGroup& group,
                 const std::vector<RankSpmvRow>& rows, const std::string& format)
{
    const auto [slowest, mean] = slowest_and_mean(rows);
    std::string text = fmt::format(
        "SpMV across {} ranks ({}): format {}, median of {} products after {} warm-up, {}\n", rows.size(),
        group.device.describe(), format, options.repeats, options.warmup, make_interval_timer(group.exec)->clock());
    text += fmt::format("{:>8} {:>11} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>9} {:>7} {:>9}\n", "rank", "owned rows",
                        "ghosts", "halo kB", "local us", "% copy", "halo us", "ghost us", "product", "hidden",
                        "sum3 us");
    for (const RankSpmvRow& r : rows) text += table_line(std::to_string(r.rank), r);
    text += table_line("slowest", slowest) + table_line("mean", mean);
    std::cout << text;
    nlohmann::json json;
    json["ranks"] = rows.size();
    json["communicator"] = group.device.describe();
    json["format"] = format;
    for (const RankSpmvRow& r : rows)
        json["per_rank"].push_back({{"rank", r.rank}, {"owned_rows", r.owned}, {"ghosts", r.ghosts},
                                    {"halo_bytes", r.halo_bytes}, {"local_min_bytes", r.local_bytes},
                                    {"copy_bytes_per_second", r.copy_bytes_per_second},
                                    {"local_seconds", r.local_seconds}, {"halo_seconds", r.halo_seconds},
                                    {"nonlocal_seconds", r.nonlocal_seconds}, {"product_seconds", r.product_seconds},
                                    {"hidden_share", r.hidden_share()}, {"all_reduce_seconds", r.all_reduce_seconds}});
    write_bench_file(spec, options.output_dir, "bench_ranks.json", json.dump(2) + "\n");
}

template <typename V>
std::vector<RankSpmvRow> bench_ranks(const CaseSpec& spec, const SpmvBenchOptions& options, const RankGroup& group)
{
    const PartPayload part = part_of_rank(spec, group);
    const DistributedSystem<V> system = build_distributed_system<V>(group.exec, part, spec, group.device);
    const RankSpmvRow mine = measure_rank(system, group, options);
    const std::vector<double> figures = row_figures(mine);
    const std::vector<RankSpmvRow> rows =
        rows_from_figures(gather_on_every_rank(group.host, figures), figures.size());
    if (group.host.rank() == 0) report_rows(spec, options, group, rows, system.op->format());
    return rows;
}

}  // namespace

std::vector<RankSpmvRow> run_rank_spmv_bench(const CaseSpec& spec, const SpmvBenchOptions& options,
                                             const RankGroup& group)
{
    if (!options.formats.empty() || options.csr_sweep || options.staircase_sweep)
        throw StoppedOnEveryRank("bench spmv under mpirun times the case's format across the ranks; leave out "
                                 "--formats, --csr-sweep and --staircase-sweep (pick the format with --set format=...)",
                                 group.host.rank() == 0);
    return spec.precision == Precision::float32 ? bench_ranks<float>(spec, options, group)
                                                : bench_ranks<double>(spec, options, group);
}

}  // namespace gpufem
