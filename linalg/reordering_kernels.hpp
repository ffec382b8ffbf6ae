#pragma once
// Kernels behind the symmetric permutation of CSR matrices and vectors (linalg/reordering.hpp):
// declared once, implemented in cpu/ and cuda/.
#include "linalg/csr.hpp"

namespace gpufem {

namespace kernels::cpu {
/// B = P A P^T: row i of B is row perm[i] of A with columns relabelled by the inverse of perm
/// and sorted within the row. perm (new -> old) and the output arrays (rows + 1, nnz, nnz)
/// live in host memory.
template <typename V>
void permute_symmetric(const Executor& exec, const Csr<V>& a, const index_type* perm,
                       index_type* b_ptr, index_type* b_col, V* b_val);

/// y[i] = x[perm[i]] (inverse = false) or y[perm[i]] = x[i] (inverse = true), i < n.
template <typename V>
void permute_vector(const Executor& exec, index_type n, const index_type* perm, const V* x, V* y,
                    bool inverse);
}  // namespace kernels::cpu

namespace kernels::cuda {
/// Device version of kernels::cpu::permute_symmetric on exec's stream (same result, bit for bit).
template <typename V>
void permute_symmetric(const Executor& exec, const Csr<V>& a, const index_type* perm,
                       index_type* b_ptr, index_type* b_col, V* b_val);

/// Device version of kernels::cpu::permute_vector on exec's stream.
template <typename V>
void permute_vector(const Executor& exec, index_type n, const index_type* perm, const V* x, V* y,
                    bool inverse);
}  // namespace kernels::cuda

}  // namespace gpufem
