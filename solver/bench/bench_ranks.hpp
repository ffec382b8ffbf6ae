#pragma once
// `gpufem bench spmv` under mpirun (more than one rank): the distributed product of the case's
// format timed rank by rank and split into its parts — the local block alone (and its share of
// the copy bandwidth measured on the rank's device), the halo exchange alone, the ghost
// columns, the whole product with the exchange overlapping the local block (how much of the
// halo it hides) — and the latency of the solvers' all-reduce of 3 scalars; a table per rank
// with the slowest and the mean, and bench_ranks.json.
#include "solver/bench/bench_spmv.hpp"
#include "solver/run/distributed_run.hpp"

namespace gpufem {

/// One rank's measurements (seconds are medians of options.repeats, CUDA events on a GPU).
struct RankSpmvRow {
    int rank = 0;
    long long owned = 0;
    long long ghosts = 0;
    std::size_t halo_bytes = 0;          ///< sent per product
    std::size_t local_bytes = 0;         ///< the local block's minimum bytes per product
    double copy_bytes_per_second = 0;    ///< the rank's device, measured in the run
    double local_seconds = 0;            ///< the owned x owned block alone
    double halo_seconds = 0;             ///< the exchange alone (gather, messages)
    double nonlocal_seconds = 0;         ///< the ghost columns alone
    double product_seconds = 0;          ///< the whole product, the exchange overlapping
    double all_reduce_seconds = 0;       ///< 3 scalars summed over the ranks on the device

    /// The share of the halo's time the overlap hid (0: none, 1: all).
    double hidden_share() const;
};

/// Runs the benchmark on this rank of group (collective); rank 0 prints the table and writes
/// bench_ranks.json. Returns every rank's row (on every rank).
std::vector<RankSpmvRow> run_rank_spmv_bench(const CaseSpec& spec, const SpmvBenchOptions& options,
                                             const RankGroup& group);

}  // namespace gpufem
