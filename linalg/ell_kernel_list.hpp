// ELL kernels (cpu: plain loops; cuda: the device versions noted).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by linalg/ell.hpp. No
// include guard, no includes: it is read once per backend namespace.

/// Writes the length of every row to row_len (rows entries) and returns the longest.
/// cuda: a length kernel and a CUB max-reduction; the width is read back.
template <typename V>
index_type ell_row_lengths(const Executor& exec, const Csr<V>& a, index_type* row_len)
    GPUFEM_KERNEL_BODY

/// Fills ell.col_idx / ell.values (allocated, width * stride) from a, padding included.
/// cuda: one thread per padded row writes its column of entries (coalesced).
template <typename V>
void ell_fill(const Executor& exec, const Csr<V>& a, Ell<V>& ell) GPUFEM_KERNEL_BODY

/// y = alpha A x + beta y over the ELL layout (stops at row_len when present);
/// beta == 0 ignores y's contents. cuda: one thread per row, column-major reads, x
/// through the read-only cache.
template <typename V>
void ell_spmv(const Executor& exec, const Ell<V>& a, V alpha, const V* x, V beta, V* y)
    GPUFEM_KERNEL_BODY

/// y = A x and partials[k] = the sum of x_i y_i over rows k * ell_dot_rows .. (k + 1) *
/// ell_dot_rows - 1 (double; in row order on the cpu, a block reduction on cuda): the product
/// fused with a CG's p.Ap. A square matrix.
template <typename V>
void ell_spmv_dot(const Executor& exec, const Ell<V>& a, const V* x, V* y, double* partials)
    GPUFEM_KERNEL_BODY

/// CG's direction fused with the product (LinearOperator::apply_cg_direction): with b = *beta,
/// p = z + b p, q = A z + b q (b == 0: p = z, q = A z, their contents ignored) and partials
/// over the rows' blocks as ell_spmv_dot.
template <typename V>
void ell_spmv_direction(const Executor& exec, const Ell<V>& a, const V* z, const double* beta, V* p, V* q,
                        double* partials) GPUFEM_KERNEL_BODY
