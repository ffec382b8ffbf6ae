#pragma once
// The setup steps of smoothed-aggregation AMG on one level, on the matrix's executor:
// strength of connection, aggregation (distance-2 maximal independent set), the tentative
// prolongator from the constant near-nullspace, its Jacobi smoothing, and the Galerkin coarse
// operator. See amg_kernels.hpp for the algorithms.
#include <cstdint>

#include "linalg/array.hpp"
#include "linalg/csr.hpp"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/amg_options.hpp"

namespace gpufem {

/// Node -> aggregate map of one level.
struct Aggregates {
    Array<index_type> of_node;  ///< aggregate of each node, -2 for nodes in none (isolated)
    Array<index_type> roots;    ///< the root (independent-set node) of each aggregate
    index_type count = 0;       ///< aggregates = rows of the next level
    int rounds = 0;             ///< rounds the independent set took
    /// The strong entries of the matrix they were formed over (its pattern; kept for the
    /// filtered prolongator smoothing), empty when that is not asked for.
    Array<std::uint8_t> strong;
};

/// strong[k] = 1 for the off-diagonal entries of a with |a_ij| > theta sqrt(|a_ii a_jj|), and
/// for each row's strongest entry whatever theta is (so only rows without any coupling, such
/// as Dirichlet rows, are left without a strong entry).
template <typename V>
Array<std::uint8_t> strength_of_connection(const Csr<V>& a, const Array<V>& diag, double theta);

/// Aggregates of a's nodes over the strong entries: each root of a distance-2 (or, with
/// distance1, distance-1) maximal independent set, its strong neighbours, then theirs (each
/// node joins the first aggregated strong neighbour in column order). Deterministic and the
/// same on both backends. Nodes without strong entries (no coupling at all) stay out (-2).
template <typename V>
Aggregates aggregate(const Csr<V>& a, const Array<std::uint8_t>& strong,
                     AmgAggregation distance = AmgAggregation::distance2);

/// The tentative prolongator: P0[i, aggregate(i)] = 1 (the constant vector per aggregate),
/// an empty row for nodes in no aggregate.
template <typename V>
Csr<V> tentative_prolongator(const Aggregates& aggregates);

/// P = (I - omega D^-1 A) P0 for P0 the aggregates' tentative prolongator, built row by row
/// (each row gathers its columns' aggregates; no copy of A, no sparse product). With
/// aggregates.strong set, A is the filtered matrix: the weak entries added to the diagonal
/// (row sums kept), so P's rows reach only the strong neighbours' aggregates. On CUDA a row
/// meeting more than amg_row_aggregates_limit aggregates sends the whole product to
/// cuSPARSE's SpGEMM instead.
template <typename V>
Csr<V> smoothed_prolongator(const Csr<V>& a, const Array<V>& dinv, double omega,
                            const Aggregates& aggregates);

/// C = A B (SpGEMM: gpufem's row-by-row product on the CPU, its hash product on CUDA, or
/// cuSPARSE's over blocks of at most block_nnz entries of A for rows too long for it or an
/// explicit block_nnz; see amg_spgemm).
template <typename V>
Csr<V> sparse_product(const Csr<V>& a, const Csr<V>& b, std::size_t block_nnz = amg_spgemm_block_nnz);

/// A^T.
template <typename V>
Csr<V> sparse_transpose(const Csr<V>& a);

}  // namespace gpufem
