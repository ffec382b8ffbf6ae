#pragma once
// `gpufem bench spmv`: every sparse format on the case's matrix, against cuSPARSE and the
// device's copy bandwidth measured in the same run.
#include <filesystem>
#include <string>
#include <vector>

#include "solver/case_file.hpp"

namespace gpufem {

/// Options of the SpMV benchmark.
struct SpmvBenchOptions {
    std::vector<std::string> formats;  ///< empty: every format the backend offers
    int repeats = 100;                 ///< timed SpMVs per format (median reported), >= 50
    int warmup = 20;                   ///< untimed SpMVs first (the csr tuner settles here)
    std::filesystem::path output_dir;  ///< where bench_spmv.csv / .json go ("" = next to the case)
};

/// One format's measurements.
struct SpmvBenchRow {
    std::string format;
    std::string parameters;
    std::string host_steps;
    std::size_t bytes_stored = 0;
    std::size_t min_bytes = 0;
    double convert_seconds = 0;
    double median_seconds = 0;
    double gflops = 0;
    double effective_gbps = 0;
    double percent_of_copy = 0;
    double speedup_vs_cusparse = 0;   ///< 0 when cuSPARSE was not measured
    double break_even_spmvs = -1;     ///< SpMVs after which conversion pays off against csr; -1 never
    double max_rel_error = 0;         ///< against csr's y on the same x
    std::string error;                ///< why the format could not run (refused, unavailable)
};

/// Runs the benchmark, prints the table and writes bench_spmv.csv and bench_spmv.json.
/// Returns the rows (for tests).
std::vector<SpmvBenchRow> run_spmv_bench(const CaseSpec& spec, const SpmvBenchOptions& options);

}  // namespace gpufem
