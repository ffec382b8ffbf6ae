#pragma once
// `gpufem bench solver` under mpirun (more than one rank): the case's Krylov method, variant and
// preconditioner (jacobi or none) on the distributed operator, timed on every rank at once: the
// time per iteration (the difference of a long and a short solve, medians), its split into
// the product (halo included), the vector updates and the reductions (their all-reduces
// included) from a solve with events between the phases, and one all-reduce of 3 scalars
// alone; a table per rank with the slowest and the mean, and bench_solver_ranks.json.
#include <vector>

#include "solver/bench/bench_solver.hpp"
#include "solver/run/distributed_run.hpp"

namespace gpufem {

/// One rank's measurements (seconds; per iteration unless said otherwise).
struct RankSolverRow {
    int rank = 0;
    long long owned = 0;
    int iterations = 0;                 ///< of the long timed solve
    double seconds_per_iteration = 0;   ///< (T(N) - T(N/4)) / (3N/4), medians, every rank together
                                        ///< (the mean below where noise swamps the difference)
    double solve_seconds_per_iteration = 0;  ///< T(N) / N: the long solve's mean, fixed costs included
    double spmv_seconds = 0;            ///< the product with its halo
    double vector_seconds = 0;          ///< updates (with their fused partial dots)
    double reduction_seconds = 0;       ///< reduction kernels and their all-reduces
    double all_reduce_seconds = 0;      ///< one all-reduce of 3 scalars alone (not per iteration)
};

/// Runs the benchmark on this rank of group (collective); rank 0 prints the table and writes
/// bench_solver_ranks.json. Returns every rank's row (on every rank). Refuses --formats,
/// --methods and --preconditioners on every rank (the case's own are timed; --set changes them).
std::vector<RankSolverRow> run_rank_solver_bench(const CaseSpec& spec, const SolverBenchOptions& options,
                                                 const RankGroup& group);

}  // namespace gpufem
