#pragma once
// The direct solve of the coarsest multigrid level: the inverse of a small matrix, formed
// once on the host, applied as a dense matrix-vector product.
#include <vector>

#include "linalg/csr.hpp"

namespace gpufem {

/// The largest matrix dense_inverse accepts (its cost grows as n^3).
inline constexpr index_type dense_inverse_limit = 2048;

/// A pivot below this fraction of its column's largest entry in a is taken for zero.
inline constexpr double dense_pivot_drop = 1e-12;

/// The inverse of the square matrix a (row-major, n x n, in double) by Gauss-Jordan
/// elimination with partial pivoting on the host. When the largest pivot left in a column is
/// below dense_pivot_drop times the largest entry of that column of a (a singular matrix,
/// e.g. the coarse operator of a pure Neumann problem), that direction is dropped. Measured
/// per column, a coefficient contrast (1e12 between regions) keeps every direction: the result is then a generalised inverse
/// (for a consistent right-hand side it gives a solution). Throws std::invalid_argument when a
/// has more than dense_inverse_limit rows.
template <typename V>
std::vector<double> dense_inverse(const Csr<V>& a);

/// A matrix's entries copied to the host for dense_inverse (values in double).
struct DenseInverseInput {
    index_type rows = 0;
    std::vector<index_type> row_ptr, col_idx;
    std::vector<double> values;
};

/// a's entries on the host (waits for the executor); throws std::invalid_argument as
/// dense_inverse when a has more than dense_inverse_limit rows.
template <typename V>
DenseInverseInput dense_inverse_input(const Csr<V>& a);

/// dense_inverse of entries already on the host (no device work: it can run while the
/// device computes something else), its row operations on several host threads from 128 rows.
std::vector<double> dense_inverse(const DenseInverseInput& a);

/// The same on `threads` threads (the calling one among them; 1: on it alone): the same
/// inverse to the bit whatever the count.
std::vector<double> dense_inverse(const DenseInverseInput& a, int threads);

}  // namespace gpufem
