#pragma once
// The memory a run will need, phase by phase, on the host and on the device, estimated from
// the case and the mesh's counts before the arrays are allocated; checked against what is
// free (a run that would not fit stops before it starts) and printed by `gpufem run --dry-run`.
// Each discretisation's model, array by array, is beside it in assembly/ (fe_memory_estimate,
// fv_memory_estimate, matrix_file_memory_estimate); the formats, levels and preconditioners
// give theirs through their registry entries; this file chooses from the entries and adds the
// pieces up. report.json holds the estimate beside what each phase really used
// (memory_meter.hpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "linalg/executor.hpp"
#include "linalg/format_registry.hpp"
#include "mesh/mesh_source.hpp"
#include "solver/case/case_file.hpp"
#include "solver/run/memory_meter.hpp"

namespace gpufem {

/// The estimated peak of one phase, in bytes.
struct PhaseEstimate {
    std::string phase;   ///< "mesh", "assembly", "solve", "errors", "output"
    double host = 0;     ///< resident set of the process (the baseline included)
    double device = 0;   ///< gpufem's device allocations (CUDA runs; 0 on the CPU backend)
};

/// The estimate of a run.
struct MemoryEstimate {
    bool cuda = false;            ///< estimated for a CUDA run (else the CPU backend)
    MeshCounts mesh;
    std::string format_name;      ///< the case's format
    MatrixShape matrix;           ///< the assembled matrix as estimated (rows, non-zeros, ...)
    FormatMemory format;          ///< the chosen format's memory for that matrix
    double baseline_host = 0;     ///< the process's resident set before the run's arrays
    std::vector<PhaseEstimate> phases;
    /// What makes the run assemble the matrix in CSR ("format csr", "preconditioner amg", ...;
    /// empty: it does not, or not surely: the matrix-free format with pmg).
    std::string assembles_csr;
    bool nnz_exact = false;       ///< matrix.nnz is the exact count (gpufem's generated shapes)
    /// The format holds the matrix with 64-bit row offsets (csr past csr_nnz_limit, or asked
    /// for): no cell-to-CSR map, pmg's coarse operators from the element matrices.
    bool wide_offsets = false;
    /// Why the run cannot use a matrix with 64-bit offsets (its preconditioner reads 32-bit
    /// ones); empty when it can. Thrown by check_csr_limit past the limit.
    std::string wide_refusal;
    /// What to change when the CSR would pass csr_nnz_limit (the discretisation's advice).
    std::string csr_limit_advice;

    /// The largest host and device figures over the phases.
    double peak_host() const;
    double peak_device() const;
    /// The phase with the largest device figure (host figure on the CPU backend).
    const PhaseEstimate& peak_phase(bool device) const;
};

/// Estimates the memory of running spec on a mesh of these counts, on a CUDA device or on
/// the CPU; baseline_host is the process's resident set now (libraries and the like).
MemoryEstimate estimate_memory(const CaseSpec& spec, const MeshCounts& mesh, bool cuda,
                               double baseline_host);

/// The same for a run on exec (its backend and, for CUDA, its free memory now).
MemoryEstimate estimate_memory(const CaseSpec& spec, const MeshCounts& mesh, const Executor& exec,
                               double baseline_host);

/// The estimate of a matrix case (CaseSpec::matrix) on exec, from its Matrix Market header
/// (read here, before the file): rows, the entries the file stores (symmetric: one half,
/// expanded on reading) and the file's size. Its "mesh" phase is the reading of the files.
MemoryEstimate estimate_external_memory(const CaseSpec& spec, const Executor& exec, double baseline_host);

/// Throws std::runtime_error when the estimate does not fit what exec's memory and the host
/// have free now (with the estimate, the free memory and what to change).
void check_memory_fits(const MemoryEstimate& estimate, const Executor& exec);

/// gpufem's CSR with 32-bit row offsets (and every assembled format but csr, built from it)
/// holds at most this many non-zeros; csr takes 64-bit offsets past it (WideCsr).
inline constexpr double csr_nnz_limit = 2147483647.0;

/// The preconditioners a matrix with 64-bit row offsets takes (none reads its offsets), for
/// messages.
inline constexpr const char* wide_offsets_preconditioners =
    "jacobi, none, or pmg (at degree >= 2, or at degree 1 on a generated grid or a mesh refined by gpufem: "
    "coarse operators from the element matrices)";

/// Throws std::runtime_error, naming what assembles the matrix and what to use instead (csr
/// with 64-bit offsets, the matrix-free lma), when the run would assemble a CSR matrix of
/// more than csr_nnz_limit non-zeros for a format or preconditioner that reads 32-bit offsets
/// only: an exact count past it, or an estimate 20% past it (nearer, the assembly checks the
/// exact count when it has it). Not a memory check: --no-memory-check does not skip it.
void check_csr_limit(const MemoryEstimate& estimate);

/// The sizes and the estimate as a table (--dry-run and the log).
std::string memory_estimate_table(const MemoryEstimate& estimate);

/// report.json's "memory": the estimate and, per phase, what was measured.
nlohmann::json memory_report(const MemoryEstimate& estimate, const std::vector<PhaseMemory>& measured);

}  // namespace gpufem
