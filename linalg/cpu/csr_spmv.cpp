#include "linalg/csr_kernels.hpp"

#include <algorithm>
#include "linalg/cpu/chunked_loops.hpp"

namespace gpufem::kernels::cpu {
namespace {

template <typename V, typename O>
void spmv(const Csr<V, O>& a, V alpha, const V* x, V beta, V* y)
{
    const O* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    // Rows in chunks handed out on demand: a thread slowed by another process does fewer.
    chunked_for(a.rows, [&](long long row) {
        V sum = 0;
        for (O k = ptr[row]; k < ptr[row + 1]; ++k) sum += val[k] * x[col[k]];
        y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    });
}

template <typename V, typename O>
void diagonal(const Csr<V, O>& a, V* d)
{
    const O* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
#pragma omp parallel for schedule(static)
    for (index_type row = 0; row < a.rows; ++row) {
        V diag = 0;
        for (O k = ptr[row]; k < ptr[row + 1]; ++k)
            if (col[k] == row) diag += val[k];
        d[row] = diag;
    }
}

template <typename V, typename O>
RowStats stats(const Csr<V, O>& a)
{
    RowStats s;
    if (a.rows == 0) return s;
    const O* ptr = a.row_ptr.data();
    s.min = static_cast<index_type>(ptr[1] - ptr[0]);
    for (index_type i = 0; i < a.rows; ++i) {
        const auto length = static_cast<index_type>(ptr[i + 1] - ptr[i]);
        s.min = std::min(s.min, length);
        s.max = std::max(s.max, length);
    }
    s.mean = static_cast<double>(ptr[a.rows]) / a.rows;
    return s;
}

}  // namespace

template <typename V, typename O>
RowStats csr_row_stats(const Executor&, const Csr<V, O>& a)
{
    return stats(a);
}

template <typename V, typename O>
void csr_spmv(const Executor&, const Csr<V, O>& a, V alpha, const V* x, V beta, V* y)
{
    spmv(a, alpha, x, beta, y);
}

template <typename V, typename O>
void csr_diagonal(const Executor&, const Csr<V, O>& a, V* d)
{
    diagonal(a, d);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(csr_spmv, csr_diagonal, csr_row_stats)

}  // namespace gpufem::kernels::cpu
