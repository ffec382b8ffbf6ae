// Reference ELLPACK(-R) conversion and SpMV: plain loops over rows (OpenMP), the layout
// written exactly as the CUDA kernels write it.
#include <algorithm>

#include "linalg/ell.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
index_type ell_row_lengths(const Executor&, const Csr<V>& a, index_type* row_len)
{
    const index_type* ptr = a.row_ptr.data();
    index_type width = 0;
#pragma omp parallel for schedule(static) reduction(max : width)
    for (index_type row = 0; row < a.rows; ++row) {
        row_len[row] = ptr[row + 1] - ptr[row];
        width = std::max(width, row_len[row]);
    }
    return width;
}

template <typename V>
void ell_fill(const Executor&, const Csr<V>& a, Ell<V>& ell)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    index_type* ell_col = ell.col_idx.data();
    V* ell_val = ell.values.data();
    const std::size_t stride = static_cast<std::size_t>(ell.stride);
#pragma omp parallel for schedule(static)
    for (index_type row = 0; row < ell.stride; ++row) {
        const index_type begin = row < a.rows ? ptr[row] : 0;
        const index_type len = row < a.rows ? ptr[row + 1] - begin : 0;
        const index_type pad_col = len > 0 ? col[begin + len - 1] : std::min(row, a.cols - 1);
        for (index_type k = 0; k < ell.width; ++k) {
            const std::size_t at = k * stride + static_cast<std::size_t>(row);
            ell_col[at] = k < len ? col[begin + k] : pad_col;
            ell_val[at] = k < len ? val[begin + k] : V(0);
        }
    }
}

namespace {

/// Row row of A x: its stored entries (to its length with ELLPACK-R, else the full width,
/// padding multiplying by 0).
template <typename V>
V ell_row(const Ell<V>& a, index_type row, const V* x)
{
    const index_type len = a.with_lengths ? a.row_len.data()[row] : a.width;
    const std::size_t stride = static_cast<std::size_t>(a.stride);
    V sum = 0;
    for (index_type k = 0; k < len; ++k) {
        const std::size_t at = k * stride + static_cast<std::size_t>(row);
        sum += a.values.data()[at] * x[a.col_idx.data()[at]];
    }
    return sum;
}

}  // namespace

template <typename V>
void ell_spmv(const Executor&, const Ell<V>& a, V alpha, const V* x, V beta, V* y)
{
#pragma omp parallel for schedule(static)
    for (index_type row = 0; row < a.rows; ++row) {
        const V sum = ell_row(a, row, x);
        y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

template <typename V>
void ell_spmv_dot(const Executor&, const Ell<V>& a, const V* x, V* y, double* partials)
{
    const index_type blocks = (a.rows + ell_dot_rows - 1) / ell_dot_rows;
#pragma omp parallel for schedule(static)
    for (index_type b = 0; b < blocks; ++b) {
        double partial = 0;
        for (index_type row = b * ell_dot_rows; row < std::min(a.rows, (b + 1) * ell_dot_rows); ++row) {
            y[row] = ell_row(a, row, x);
            partial += double(x[row]) * double(y[row]);
        }
        partials[b] = partial;
    }
}

template <typename V>
void ell_spmv_direction(const Executor&, const Ell<V>& a, const V* z, const double* beta, V* p, V* q,
                        double* partials)
{
    const index_type blocks = (a.rows + ell_dot_rows - 1) / ell_dot_rows;
    const V b = static_cast<V>(*beta);
#pragma omp parallel for schedule(static)
    for (index_type k = 0; k < blocks; ++k) {
        double partial = 0;
        for (index_type row = k * ell_dot_rows; row < std::min(a.rows, (k + 1) * ell_dot_rows); ++row) {
            const V product = ell_row(a, row, z);
            q[row] = b == V(0) ? product : product + b * q[row];
            p[row] = b == V(0) ? z[row] : z[row] + b * p[row];
            partial += double(p[row]) * double(q[row]);
        }
        partials[k] = partial;
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(ell_row_lengths, ell_fill, ell_spmv, ell_spmv_dot, ell_spmv_direction)

}  // namespace gpufem::kernels::cpu
