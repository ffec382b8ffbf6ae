#pragma once
// A Matrix Market system (the case's `matrix:` map) solved across ranks: rank 0 reads A and b
// (scaled into the precision as one process scales them, assembly/matrix_file_system.hpp),
// cuts A into contiguous blocks of rows of about equal entries (the distribution PETSc's
// MatLoad makes) and sends each rank its rows; each rank numbers the columns outside its
// block as ghosts (increasing, so grouped by owner in rank order) and makes their halo. At
// the end rank 0 gathers the solution, rows in order.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assembly/poisson_assembly.hpp"
#include "solver/run/distributed_report.hpp"
#include "solver/run/part_payload.hpp"

namespace gpufem {

/// This rank's rows of the external system.
template <typename V>
struct RankMatrixRows {
    /// No mesh: the layout (owned rows, then the ghost columns by owner), each unknown's row
    /// in the whole system (PartNumbering::global) and the halo.
    PartPayload part;
    /// Owned rows x the part's unknowns, the owned rows' right-hand side, a zero guess, in V
    /// (A and b scaled by one power of two where V needs it: the solution is the same).
    LinearSystem<V> system;
    index_type first_row = 0;    ///< the whole system's number of the first owned row
    bool against_ones = false;   ///< b = A 1: the solution's error against 1 is reported
    // Rank 0's account of the whole system (empty elsewhere):
    std::string describe;        ///< "external system A.mtx (n rows, nnz non-zeros)"
    nlohmann::json report;       ///< the scaling and range warnings (report.json discretisation)
};

/// This rank's rows (see the header comment); a failure on rank 0 (a missing or malformed
/// file, a singular or non-square matrix, fewer rows than ranks) stops every rank with its
/// message (StoppedOnEveryRank). phases.mesh: the reading and scaling (rank 0), phases.scatter
/// the sending. Collective over group.host.
template <typename V>
RankMatrixRows<V> receive_matrix_rows(const CaseSpec& spec, const RankGroup& group, RankPhases& phases);

/// The whole solution on rank 0 from every rank's owned values (rows first_row on, in order);
/// empty elsewhere. Collective over host.
std::vector<double> gather_matrix_solution(const Communicator& host, index_type first_row,
                                           const std::vector<double>& mine);

/// The error of u (this rank's rows) against the vector of ones, as squares summed over the
/// ranks by the report: l2 the discrete 2-norm, max_nodal the largest entry, l2_exact ||1||.
ErrorNorms error_against_ones(const std::vector<double>& u);

}  // namespace gpufem
