#pragma once
// `gpufem bench spmv --staircase-sweep`: Wikberg 2025's experiments on the case's matrix (finite-
// volume matrices above all: 5-7 entries a row, a few distinct lengths): Staircase SELL over
// alpha x slice height with blocks of slice-height threads as in the paper (up to 1024), with
// and without the Cuthill-McKee order, and cuSPARSE's sliced ELL on the same staircase row
// order at the same slice heights (the paper's Table 5.2 comparison); the row-length
// histogram the groups are made from.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "linalg/csr.hpp"
#include "solver/bench/bench_spmv.hpp"

namespace gpufem {

/// Alphas the sweep tries (0: no merging).
std::vector<double> staircase_sweep_alphas();
/// Slice heights the sweep tries, 32 to 1024 (each also the block size).
std::vector<int> staircase_sweep_slice_heights();

/// One timed configuration.
struct StaircaseSweepRow {
    std::string format;         ///< staircase | cusparse-sell (on the staircase order)
    bool cuthill_mckee = true;  ///< the order before the length sort
    double alpha = 0;           ///< staircase only
    int slice_height = 0;
    int block = 0;              ///< threads per block (staircase: = slice height)
    std::string parameters;     ///< the operator's own account (groups, padding)
    std::size_t min_bytes = 0;  ///< stored entries (padding included), x and y once
    double median_seconds = 0;
    double percent_of_copy = 0;
};

/// The sweep on one matrix.
struct StaircaseSweepResult {
    index_type rows = 0;
    std::size_t nnz = 0;
    std::vector<long long> rows_with_length;  ///< [L] = rows with L entries
    std::vector<StaircaseSweepRow> timings;   ///< in sweep order
    int repeats = 0;
    double copy_bw = 0;                       ///< bytes read + written per second
};

/// Times every configuration (median of options.repeats SpMVs after options.warmup, CUDA
/// events, x rotated over bench_inputs). CUDA only: throws std::invalid_argument elsewhere.
template <typename V>
StaircaseSweepResult run_staircase_sweep(const Csr<V>& matrix, const SpmvBenchOptions& options, double copy_bw);

/// The histogram, the alpha x slice-height tables (% of copy) for both orders, cuSPARSE SELL
/// beside them, and the best configuration.
std::string staircase_sweep_report(const StaircaseSweepResult& result, const std::string& header);

/// Prints the report and writes staircase_sweep.csv, .json and .txt into folder (staged).
void write_staircase_sweep(const StaircaseSweepResult& result, const std::string& header,
                           const nlohmann::json& context, const std::filesystem::path& folder);

}  // namespace gpufem
