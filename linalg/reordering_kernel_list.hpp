// Reordering kernels (cuda: the same result, bit for bit, on exec's stream).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// linalg/reordering_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// B = P A P^T: row i of B is row perm[i] of A with columns relabelled by the inverse
/// of perm and sorted within the row. perm (new -> old) and the output arrays (rows +
/// 1, nnz, nnz) live in exec's memory.
template <typename V>
void permute_symmetric(const Executor& exec, const Csr<V>& a, const index_type* perm,
                       index_type* b_ptr, index_type* b_col, V* b_val) GPUFEM_KERNEL_BODY

/// y[i] = x[perm[i]] (inverse = false) or y[perm[i]] = x[i] (inverse = true), i < n.
template <typename V>
void permute_vector(const Executor& exec, index_type n, const index_type* perm, const V* x, V* y,
                    bool inverse) GPUFEM_KERNEL_BODY
