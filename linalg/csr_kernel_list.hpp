// CSR kernels of both backends. Each takes a matrix with 32-bit row offsets (Csr<V>, O =
// index_type) or with 64-bit ones (WideCsr<V>, O = wide_offset_type: past 2^31 - 1 entries).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// linalg/csr_kernels.hpp. No include guard, no includes: it is read once per backend namespace.

/// y = alpha A x + beta y; beta == 0 ignores y's contents. cpu: the reference, one loop
/// per row, OpenMP over rows. cuda: the plain scalar kernel, one thread per row.
template <typename V, typename O>
void csr_spmv(const Executor& exec, const Csr<V, O>& a, V alpha, const V* x, V beta, V* y)
    GPUFEM_KERNEL_BODY

/// d[i] = a_ii (0 where row i stores no diagonal entry); cuda: one thread per row.
template <typename V, typename O>
void csr_diagonal(const Executor& exec, const Csr<V, O>& a, V* d) GPUFEM_KERNEL_BODY

/// Entries per row: min, mean, max, from the row offsets where they are (cuda: one
/// pass of atomics over the rows, two numbers back; no host copy of the offsets).
template <typename V, typename O>
RowStats csr_row_stats(const Executor& exec, const Csr<V, O>& a) GPUFEM_KERNEL_BODY
