#pragma once
// Sweeps: a case listing several degrees, refinement levels and/or kappas runs every
// combination and prints one comparison table.
#include <functional>
#include <string>
#include <vector>

#include "solver/run/run_case.hpp"

namespace gpufem {

/// One row of the sweep table.
struct SweepRow {
    int degree = 1;
    int refine = 0;
    int kappa_index = 0;  ///< the entry of the case's kappas
    std::string kappa;    ///< its expression
    bool kappas = false;  ///< the sweep lists several kappas (folders and table name them)
    RunRecord record;
    double l2_rate = 0;  ///< against the previous refinement of the same degree (0 = none)
    double h1_rate = 0;
};

/// The file that marks a sweep that stopped at a failed point.
inline constexpr const char* sweep_incomplete_file = "sweep_incomplete.json";

/// The folder of a sweep point under the sweep's: d<degree>_r<refine>, with _k<kappa index>
/// when the sweep lists several kappas.
std::string sweep_point_folder(const SweepRow& row);

/// How a sweep runs its points: run_case in this process by default, or across the ranks of a
/// run under mpirun.
struct SweepRunner {
    /// Runs one point with its outputs in options.output_dir; reuse: what the points of one
    /// mesh and degree share, or null when they share nothing.
    std::function<RunRecord(const CaseSpec&, const RunOptions&, SweepReuse*)> run =
        [](const CaseSpec& spec, const RunOptions& options, SweepReuse* reuse) { return run_case(spec, options, reuse); };
    std::string result_file = "result.vtu";  ///< each point's solution, as result.pvd names it
    bool shares = true;                      ///< whether points of one mesh share it (SweepReuse)
};

/// Runs every combination (outputs of each in <out>/d<degree>_r<refine>[_k<kappa>]/; the
/// points of one mesh and degree that differ in kappa share the mesh and update the first
/// one's preconditioner hierarchy: SweepReuse), then writes
/// <out>/result.pvd (a collection of the results), <out>/sweep.csv and <out>/report.json (the
/// table), prints the table and returns the rows. When a point fails, the completed points'
/// folders are kept, <out>/sweep_incomplete.json lists them with the failed point and its
/// error, and the error is rethrown (no table, collection or report). A sweep that completes
/// removes an earlier sweep_incomplete.json.
std::vector<SweepRow> run_sweep(const CaseSpec& spec, const RunOptions& options, const SweepRunner& runner = {});

/// The sweep table as text.
std::string sweep_table(const std::vector<SweepRow>& rows);

}  // namespace gpufem
