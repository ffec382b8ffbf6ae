#pragma once
// `format: auto`: the format chosen on the real matrix before the solve. The assembled formats
// the backend has are built from the matrix and timed over a few SpMVs in the solve's
// precision (those that order rows on the host only when that can pay off); each one's
// conversion is counted against the SpMVs the solve is expected to take (the case's
// auto_iterations, a short run of its solver, or an assumption for multigrid), and the one with
// the smallest expected total (conversion + SpMVs) wins. The decision table goes to the log
// and to report.json.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "assembly/poisson_assembly.hpp"
#include "linalg/communicator.hpp"
#include "linalg/format_build.hpp"
#include "linalg/format_registry.hpp"
#include "solver/case/case_file.hpp"

namespace gpufem {

/// The name that asks for the choice (format: auto).
inline constexpr std::string_view auto_format_name = "auto";

/// The formats `auto` tries on backend: the assembled formats the backend has (csr-scalar
/// apart: csr's tuned kernel supersedes it).
std::vector<const FormatEntry*> auto_format_candidates(Backend backend);

/// One candidate's measurements.
struct FormatCandidate {
    std::string format;
    double convert_seconds = 0;  ///< its build from the CSR (reordering included)
    double spmv_seconds = 0;     ///< median SpMV after warm-up
    double expected_seconds = 0; ///< convert + expected SpMVs x spmv (csr: no conversion)
    std::string error;           ///< why it was not built (refused, e.g. bdia's band)
};

/// The decision.
struct FormatChoice {
    std::string format;                  ///< the chosen one
    double expected_spmvs = 0;           ///< SpMVs the solve is expected to take
    double expected_iterations = 0;
    std::string iterations_source;       ///< "auto_iterations", "estimated from ...", "a short run
                                         ///< converged in ..." or "assumed for amg|pmg"
    std::vector<FormatCandidate> candidates;
    double seconds = 0;                  ///< the whole decision (trials and estimate)
    double reorder_seconds = 0;          ///< of seconds: the case's reordering, done once

    /// The table for the log.
    std::string table() const;
    /// report.json's format_choice.
    nlohmann::json to_json() const;
};

/// Chooses the format for system (assembled, on its executor) with the case's solver and
/// options (spec.auto_iterations when set; else a short estimate). The case's reordering is
/// applied once here, for every candidate: system.matrix becomes the reordered matrix (rhs
/// and guess stay in the original numbering) and reordering gets its permutation and time,
/// to be put into the chosen format's build (prepend_reordering).
template <typename V>
FormatChoice choose_format(LinearSystem<V>& system, const CaseSpec& spec,
                           std::optional<ReorderedMatrix<V>>& reordering);

/// format: auto under mpirun: the format every rank stores its local block in. Each rank
/// builds and times the candidates on local (its owned rows' owned columns, with the case's
/// options, reordering included); the expected SpMVs come from the case's hint, the multigrid
/// assumption, or a short run across the ranks on distributed_baseline() (the distributed
/// system in the baseline format; owned: its right-hand side and initial guess); the candidate
/// whose slowest rank expects the least time wins, the same on every rank. Collective over
/// host (sums) and device (the short run). The table holds this rank's times.
template <typename V>
FormatChoice choose_rank_format(const Csr<V>& local, const LinearSystem<V>& owned,
                                const std::function<std::unique_ptr<LinearOperator<V>>()>& distributed_baseline,
                                const CaseSpec& spec, const Communicator& host, const Communicator& device);

}  // namespace gpufem
