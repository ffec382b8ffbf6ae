#pragma once
// `gpufem run` on one case: the pipeline's stages (pipeline.hpp) with their account in a
// RunRecord, then result.vtu, report.json and spmv_timings.csv.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "solver/case/case_file.hpp"
#include "solver/run/memory_estimate.hpp"
#include "solver/report/run_record.hpp"

namespace gpufem {

/// Exit codes of `gpufem run`.
enum ExitCode : int {
    exit_ok = 0,
    exit_error = 1,          ///< bad input or a failure: nothing written
    exit_not_converged = 2,  ///< outputs written, but the solver did not converge
};

/// Options from the command line that are not part of the case.
struct RunOptions {
    std::filesystem::path output_dir;  ///< "" = next to the case file, named after it
    bool write_outputs = true;
    /// Stop before allocating when the memory estimate exceeds what is free (false: only warn).
    bool check_memory = true;
    /// --export-matrix: also write A.mtx, b.mtx (the assembled system after the boundary
    /// conditions, original numbering) and x.mtx (the solution) here ("" = not).
    std::filesystem::path export_matrix_dir;
    /// When the program started (main() sets it): report.json's startup and wall times count
    /// from here.
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

/// The folder outputs go to: options.output_dir, or <case folder>/<case name>.
std::filesystem::path output_folder(const CaseSpec& spec, const RunOptions& options);

/// The memory estimate of running spec (memory_estimate.hpp), made as run_case makes it: from
/// the counts of a generated shape without building it, or from the mesh Gmsh makes.
MemoryEstimate estimate_case_memory(const CaseSpec& spec, const ExecPtr& exec);

struct CaseMesh;
class KeptPreconditioner;
struct RankSweepReuse;

/// What consecutive points of a coefficient sweep (one mesh and degree, another kappa) share:
/// run_sweep keeps one across them and drops it when the mesh changes.
struct SweepReuse {
    /// The executor of the first point: the next points run on it (the kept mesh's device
    /// arrays and the hierarchy live on its device and stream).
    ExecPtr exec;
    /// The mesh the first of the points loaded (null: none yet): the next points take it.
    std::shared_ptr<const CaseMesh> mesh;
    /// The preconditioner the first point set up (solve_system's kept): the next points
    /// update its hierarchy with their values (amg, and pmg with an assembled matrix).
    std::shared_ptr<KeptPreconditioner> preconditioner;
    /// Under mpirun: each rank's part of the mesh (solver/run/distributed_run.hpp).
    std::shared_ptr<RankSweepReuse> ranks;
};

/// Throws std::invalid_argument when options ask --export-matrix of a sweep (it writes one
/// system).
void check_export_matrix(const CaseSpec& spec, const RunOptions& options);

/// Runs a case end to end and writes its outputs (staged, renamed at the end). Throws on
/// errors; returns the record (record.solve tells whether it converged). With reuse, the mesh
/// and the preconditioner are taken from it when it holds them, and put there otherwise.
RunRecord run_case(const CaseSpec& spec, const RunOptions& options, SweepReuse* reuse = nullptr);

}  // namespace gpufem
