#pragma once
// `gpufem bench spmv`: every sparse format (and the matrix-free lma variants) on the case's
// matrix, against cuSPARSE and the device's copy bandwidth measured in the same run; for a
// case that lists several degrees or refinements (a sweep), every point and a summary table
// against the best assembled format (Reguly & Giles 2012, Figures 17-18).
#include <filesystem>
#include <string>
#include <vector>

#include "solver/case/case_file.hpp"

namespace gpufem {

/// Options of the SpMV benchmark.
struct SpmvBenchOptions {
    /// Empty: every format the backend offers and lma-all. Names of format_names() or LMA
    /// variants lma[-atomic|-colour|-all][-sym|-full][:KERNEL|:all] (bench_lma_formats.hpp).
    std::vector<std::string> formats;
    int repeats = 100;                 ///< timed SpMVs per format (median reported), >= 50
    int warmup = 20;                   ///< untimed SpMVs first (the csr tuner settles here)
    int cg_iterations = 200;           ///< CG iterations timed per format (0: no CG column)
    std::filesystem::path output_dir;  ///< where the csv / json go ("" = next to the case)
    /// Instead of the format table: the exhaustive coop x repeat x block search of the csr
    /// kernel against its fixed rule and tuner (bench_csr_sweep.hpp); cuda backend only.
    bool csr_sweep = false;
    /// Instead of the format table: Wikberg 2025's staircase experiments (alpha x slice height, with
    /// and without Cuthill-McKee, cuSPARSE SELL on the staircase order; bench_staircase_sweep.hpp);
    /// cuda backend only.
    bool staircase_sweep = false;
};

/// One format's measurements.
struct SpmvBenchRow {
    int degree = 1;                   ///< the sweep point (the case's degree otherwise)
    int refine = 0;
    long long unknowns = 0;           ///< rows of the system
    std::string format;
    std::string parameters;
    std::string host_steps;
    bool matrix_free = false;         ///< an operator level (lma, pa), not an assembled format
    bool vendor_baseline = false;     ///< the vendor's SpMV the speedups are measured against
    std::size_t bytes_stored = 0;
    std::size_t min_bytes = 0;
    double convert_seconds = 0;       ///< from CSR; lma: the whole build from the mesh
    double median_seconds = 0;
    double gdofs = 0;                 ///< unknowns per second of one apply, in billions
    double gflops = 0;                ///< 2 nnz of the assembled matrix per SpMV (lma too)
    double band_gflops = 0;           ///< bdia: 2 n d per SpMV, band zeros included (0 for others)
    double effective_gbps = 0;
    double percent_of_copy = 0;
    double speedup_vs_cusparse = 0;   ///< 0 when cuSPARSE was not measured
    double break_even_spmvs = -1;     ///< SpMVs after which conversion pays off against csr; -1 never
    double max_rel_error = 0;         ///< against csr's y on the same x
    double cg_iterations_per_second = 0;  ///< merged CG (solver/cg.hpp) on this format, 0 = not run
    std::string error;                ///< why the format could not run (refused, unavailable)
};

/// Runs the benchmark, prints the table(s) and writes bench_spmv.csv and bench_spmv.json
/// (a sweep: one folder d<degree>_r<refine> per point, plus bench_sweep.csv / .json and the
/// summary table). Returns the rows of every point. With options.csr_sweep it runs
/// run_csr_sweep instead (refused on the CPU backend) and returns no rows.
std::vector<SpmvBenchRow> run_spmv_bench(const CaseSpec& spec, const SpmvBenchOptions& options);

/// The sweep summary: per point, each format's bytes per row, SpMV time, % of copy, CG it/s
/// and its speedups over the best assembled format of that point (by CG it/s, or by SpMV
/// time without CG).
std::string spmv_sweep_table(const std::vector<SpmvBenchRow>& rows);

}  // namespace gpufem
