#pragma once
// RunRecord: everything one run measured, from which report.json and the summary are made.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "assembly/error_norms.hpp"
#include "assembly/flux_report.hpp"
#include "assembly/poisson_assembly.hpp"
#include "linalg/csr.hpp"
#include "solver/case/case_file.hpp"
#include "solver/krylov/krylov.hpp"
#include "solver/run/memory_estimate.hpp"
#include "solver/run/memory_meter.hpp"

namespace gpufem {

/// Facts and timings of one case run.
struct RunRecord {
    std::string backend;
    std::string device;
    std::string precision;
    std::string format;
    std::string format_parameters;   ///< the format's parameters as used (after tuning)
    std::string format_host_steps;   ///< conversion steps done on the host
    std::string reorder = "none";    ///< the case's reordering (Reordering's name)
    /// format: auto's decision (solver/run/format_choice.hpp: candidates, times, the choice);
    /// null when the case named its format.
    nlohmann::json format_choice;
    // mesh
    std::string mesh_source;
    /// What the mesh cache did: "hit", "stored", "refused: WHY", "not stored: WHY", "off: WHY"
    /// (MeshCacheStatus::describe); "" for a matrix case.
    std::string mesh_cache;
    int dim = 0;
    std::string cell_type;
    index_type nodes = 0;
    index_type cells = 0;
    std::vector<std::string> boundary_groups;
    // unknowns and matrix
    std::string unknowns_on;         ///< "nodes", "cells" or "rows" (UnknownLocation)
    index_type rows = 0;
    std::size_t nnz = 0;
    RowStats row_stats;
    bool wide_offsets = false;  ///< the matrix has 64-bit row offsets (report: matrix.row_offset_bits 64)
    std::size_t bytes_stored = 0;
    std::size_t spmv_min_bytes = 0;
    index_type dirichlet_rows = 0;
    // times (seconds)
    double time_mesh = 0;
    MeshBuildTimes time_mesh_parts;  ///< of time_mesh: in Gmsh, and gpufem's own
    /// The mesh was the previous sweep point's (a coefficient sweep): not loaded, time_mesh 0.
    bool mesh_reused = false;
    AssemblyTimes time_assembly;
    double time_operator = 0;
    double time_reorder = 0;         ///< of time_operator: the case's reordering
    double time_format_choice = 0;   ///< format: auto's trial conversions and SpMVs
    double time_read = 0;            ///< matrix cases: reading the Matrix Market files
    double time_export = 0;          ///< --export-matrix: writing the system and solution
    double time_solve = 0;           ///< the preconditioner's setup included
    double time_preconditioner_setup = 0;  ///< of time_solve: the preconditioner's setup
    double time_errors = 0;
    double time_output = 0;
    /// From main() to the mesh phase: reading the case, making the executor (on CUDA, the
    /// context), starting Gmsh's worker; not the loading of the program before main().
    double time_startup = 0;
    /// From main() to writing report.json: startup, every phase and what lies between them.
    double time_wall = 0;
    std::uintmax_t solution_file_bytes = 0;  ///< result.vtu, or a matrix case's solution.mtx (0: not written)
    // solve
    SolveResult solve;
    /// A float solve's true residual against the system assembled in double (-1: not a float
    /// solve), see true_residual_in_double.
    double true_relative_residual_double = -1;
    nlohmann::json preconditioner;   ///< the preconditioner's report (null: none)
    nlohmann::json discretisation;   ///< the discretisation's report (null: none)
    std::vector<int> pass_iterations;  ///< iterations of each solve (correction passes after the first)
    double correction_change = 0;      ///< the last correction pass's relative change of b
    std::string correction;            ///< how the correction was solved (empty: none)
    std::vector<double> spmv_seconds;
    std::string spmv_clock;
    int spmvs_per_iteration = 1;     ///< 2 for BiCGSTAB
    // accuracy
    std::optional<ErrorNorms> errors;
    /// The solution's boundary fluxes, region integrals and balance (output.fluxes).
    std::optional<FluxReport> fluxes;
    // memory (bytes): the estimate made before the arrays, and each phase's measured peak
    std::optional<MemoryEstimate> memory_estimate;
    std::vector<PhaseMemory> memory_measured;

    double median_spmv_seconds() const;
    /// Solve time without the preconditioner's setup, divided by iterations (0 if none).
    double seconds_per_iteration() const;
};

/// report.json for a run (its keys: docs/outputs.md).
nlohmann::json make_report(const CaseSpec& spec, const RunRecord& record);

/// spmv_timings.csv: iteration,format,seconds
std::string make_spmv_csv(const RunRecord& record);

/// The summary table printed at the end of a run.
std::string make_summary(const CaseSpec& spec, const RunRecord& record);

}  // namespace gpufem
