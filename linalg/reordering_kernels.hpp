#pragma once
// Kernels behind the symmetric permutation of CSR matrices and vectors (linalg/reordering.hpp):
// declared once, implemented in cpu/ and cuda/.
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

/// Reordering kernels (cuda: the same result, bit for bit, on exec's stream).
#define GPUFEM_REORDERING_KERNELS(V, PREFIX, BODY)                                           \
    /** B = P A P^T: row i of B is row perm[i] of A with columns relabelled by the inverse   \
        of perm and sorted within the row. perm (new -> old) and the output arrays (rows +   \
        1, nnz, nnz) live in exec's memory. */                                               \
    PREFIX void permute_symmetric(const Executor& exec, const Csr<V>& a,                     \
                                  const index_type* perm, index_type* b_ptr,                 \
                                  index_type* b_col, V* b_val) BODY                          \
    /** y[i] = x[perm[i]] (inverse = false) or y[perm[i]] = x[i] (inverse = true), i < n. */ \
    PREFIX void permute_vector(const Executor& exec, index_type n, const index_type* perm,   \
                               const V* x, V* y, bool inverse) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_REORDERING_KERNELS)

}  // namespace gpufem
