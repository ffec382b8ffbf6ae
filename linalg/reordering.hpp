#pragma once
// Bandwidth-reducing reorderings of a sparse matrix graph and symmetric permutation of CSR.
#include <span>
#include <vector>

#include "linalg/csr.hpp"

namespace gpufem {

/// Cuthill–McKee order of the graph of a square matrix's pattern (Boost.Graph's
/// cuthill_mckee_ordering, pseudo-peripheral start per component), computed on the host from
/// row_ptr / col_idx there. Returns new index -> old index. reverse = true gives reverse
/// Cuthill–McKee (RCM).
std::vector<index_type> cuthill_mckee_order(index_type rows, std::span<const index_type> row_ptr,
                                            std::span<const index_type> col_idx, bool reverse);

/// cuthill_mckee_order of a square matrix on any executor: its pattern read where it is on
/// the host, else copied there once.
template <typename V>
std::vector<index_type> cuthill_mckee_order(const Csr<V>& matrix, bool reverse);

/// Half bandwidth max_{a_ij != 0} |i - j| of a square CSR matrix (reads it on the host).
template <typename V>
index_type half_bandwidth(const Csr<V>& matrix);

/// B = P A P^T on A's executor: row i of B is row perm[i] of A, columns relabelled with the
/// inverse permutation and sorted within each row. perm is new -> old, on A's executor.
template <typename V>
Csr<V> permute_symmetric(const Csr<V>& a, const Array<index_type>& perm);

/// B = P A: row i of B is row perm[i] of A (columns unchanged; A may be rectangular), on A's
/// executor. perm is new -> old, on A's executor. Rearranged on the host (for setup-time
/// matrices such as multigrid transfers).
template <typename V>
Csr<V> permute_rows(const Csr<V>& a, const Array<index_type>& perm);

/// y[i] = x[perm[i]] (to the permuted order) or y[perm[i]] = x[i] (back), on x's executor.
template <typename V>
void permute_vector(const Array<index_type>& perm, const Array<V>& x, Array<V>& y, bool inverse);

}  // namespace gpufem
