#pragma once
// `gpufem bench solver`: CG and BiCGSTAB, reference and merged, on the case's system in one or
// more formats: time per iteration and its split (SpMV, vector updates, reductions), bytes per
// iteration from the traffic model, GB/s against the copy bandwidth measured in the same run,
// the merged variant's speedup (Anzt et al. 2015, Table 5), and what per-iteration SpMV timing
// costs.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "solver/case/case_file.hpp"

namespace gpufem {

/// Options of the solver benchmark.
struct SolverBenchOptions {
    std::vector<std::string> formats;          ///< empty: the case's format
    std::vector<std::string> methods;          ///< empty: cg and bicgstab (bicgstab only with convection)
    std::vector<std::string> preconditioners;  ///< empty: the case's
    int iterations = 200;                      ///< iterations of the longer timed solve (>= 20)
    int repeats = 5;                           ///< timed solves per length (median)
    std::filesystem::path output_dir;          ///< where bench_solver.csv / .json go
};

/// One (format, method, preconditioner, variant) measurement.
struct SolverBenchRow {
    std::string format;
    std::string method;
    std::string preconditioner;
    std::string variant;
    bool graph = false;                 ///< the timed solves replayed a CUDA graph
    bool fused_dot = false;             ///< CG's p.Ap computed in the product's pass
    bool fused_direction = false;       ///< CG's direction made in the product's pass too
    bool resident = false;              ///< the whole CG solve in one resident kernel
    double seconds_per_iteration = 0;   ///< marginal: (T(N) - T(N/4)) / (3N/4), medians
                                        ///< (T(N) / N where noise swamps the difference)
    double spmv_seconds = 0;            ///< per iteration, from the phase-timed solve
    double vector_seconds = 0;          ///< per iteration (merged: updates with fused partial dots)
    double reduction_seconds = 0;       ///< per iteration (dots; merged: reduction-only kernels)
    std::size_t bytes_per_iteration = 0;///< SpMV minimum bytes x SpMVs + vector traffic model
    double gbps = 0;
    double percent_of_copy = 0;
    double speedup = 0;                 ///< reference time / this time (merged rows), else 1
    double timing_overhead_percent = 0; ///< per-SpMV events on vs off (graph off), merged rows
    double setup_seconds = 0;           ///< building the preconditioner (synchronised)
    /// AMG / pmg: the setup again for new values on the same pattern (AmgPreconditioner::update,
    /// here with the same values), 0 for the others
    double update_seconds = 0;
    int iterations_to_tolerance = 0;    ///< from x = 0 to the case's tolerance
    double solve_seconds = 0;           ///< that solve's wall time (synchronised)
    /// setup_seconds + solve_seconds: what the user waits for (0 when the tolerance was not
    /// reached within the case's max_iterations)
    double time_to_solution = 0;
    nlohmann::json amg_cycle;           ///< amg: median time of each phase of each level
    std::string error;                  ///< why the row could not run
};

/// Runs the benchmark, prints the table and writes bench_solver.csv and bench_solver.json.
std::vector<SolverBenchRow> run_solver_bench(const CaseSpec& spec, const SolverBenchOptions& options);

}  // namespace gpufem
