// Reference SELL-P conversion and SpMV: plain loops (OpenMP over rows or slices), the layout
// written exactly as the CUDA kernels write it.
#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "linalg/sellp.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// Row of the matrix placed at position r in slice order (-1 for the last slice's padding).
inline index_type source_row(std::int64_t r, index_type rows, const index_type* perm)
{
    if (r >= rows) return -1;
    return perm != nullptr ? perm[r] : static_cast<index_type>(r);
}

}  // namespace

template <typename V>
void sellp_sort_rows(const Executor&, const Csr<V>& a, index_type sigma, index_type* perm)
{
    const index_type* ptr = a.row_ptr.data();
    std::iota(perm, perm + a.rows, index_type{0});
    const index_type windows = a.rows == 0 ? 0 : (a.rows - 1) / sigma + 1;
#pragma omp parallel for schedule(dynamic)
    for (index_type w = 0; w < windows; ++w) {
        const index_type begin = w * sigma;
        const index_type end = static_cast<index_type>(
            std::min<std::int64_t>(static_cast<std::int64_t>(begin) + sigma, a.rows));
        std::stable_sort(perm + begin, perm + end, [ptr](index_type i, index_type j) {
            return ptr[i + 1] - ptr[i] > ptr[j + 1] - ptr[j];
        });
    }
}

template <typename V>
std::int64_t sellp_slice_pointers(const Executor&, const Csr<V>& a, const index_type* perm,
                                  Sellp<V>& s)
{
    const index_type* ptr = a.row_ptr.data();
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(s.num_slices));
#pragma omp parallel for schedule(static)
    for (index_type slice = 0; slice < s.num_slices; ++slice) {
        const std::int64_t first = std::int64_t{slice} * s.slice;
        const std::int64_t last = std::min<std::int64_t>(first + s.slice, a.rows);
        index_type width = 0;
        for (std::int64_t r = first; r < last; ++r) {
            const index_type row = source_row(r, a.rows, perm);
            width = std::max(width, ptr[row + 1] - ptr[row]);
        }
        width = (width + s.threads - 1) / s.threads * s.threads;
        sizes[slice] = std::int64_t{width} * s.slice;
    }
    const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
    if (total > std::numeric_limits<index_type>::max())
        throw std::overflow_error("SELL-P: " + std::to_string(total) +
                                  " padded entries do not fit 32-bit slice offsets");
    index_type* out = s.slice_ptr.data();
    out[0] = 0;
    for (index_type slice = 0; slice < s.num_slices; ++slice)
        out[slice + 1] = out[slice] + static_cast<index_type>(sizes[slice]);
    return total;
}

template <typename V>
void sellp_fill(const Executor&, const Csr<V>& a, const index_type* perm, Sellp<V>& s,
                SellpPadding padding)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    const index_type* slice_ptr = s.slice_ptr.data();
    index_type* out_col = s.col_idx.data();
    V* out_val = s.values.data();
    const std::int64_t padded_rows = std::int64_t{s.num_slices} * s.slice;
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < padded_rows; ++r) {
        const index_type slice = static_cast<index_type>(r / s.slice);
        const index_type l = static_cast<index_type>(r % s.slice);
        const index_type width = (slice_ptr[slice + 1] - slice_ptr[slice]) / s.slice;
        const index_type row = source_row(r, a.rows, perm);
        const index_type begin = row >= 0 ? ptr[row] : 0;
        const index_type len = row >= 0 ? ptr[row + 1] - begin : 0;
        // Padding of an empty row (or of the last slice's extra rows) points at
        // min(own index, cols - 1): valid whenever anything is stored at all.
        index_type pad_col = -1;
        if (padding == SellpPadding::valid_column)
            pad_col = len > 0 ? col[begin + len - 1]
                              : static_cast<index_type>(std::min<std::int64_t>(
                                    row >= 0 ? row : r, a.cols - 1));
        for (index_type k = 0; k < width; ++k) {
            const index_type at = slice_ptr[slice] + k * s.slice + l;
            out_col[at] = k < len ? col[begin + k] : pad_col;
            out_val[at] = k < len ? val[begin + k] : V(0);
        }
    }
}

template <typename V>
void sellp_spmv(const Executor&, const Sellp<V>& a, V alpha, const V* x, V beta, V* y)
{
    const index_type* slice_ptr = a.slice_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    const index_type* perm = a.row_perm.empty() ? nullptr : a.row_perm.data();
#pragma omp parallel for schedule(static)
    for (index_type r = 0; r < a.rows; ++r) {
        const index_type slice = r / a.slice;
        const index_type l = r % a.slice;
        const index_type width = (slice_ptr[slice + 1] - slice_ptr[slice]) / a.slice;
        V sum = 0;
        for (index_type k = 0; k < width; ++k) {
            const index_type at = slice_ptr[slice] + k * a.slice + l;
            sum += val[at] * x[col[at]];
        }
        const index_type row = perm != nullptr ? perm[r] : r;
        y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(sellp_sort_rows, sellp_slice_pointers, sellp_fill, sellp_spmv)

}  // namespace gpufem::kernels::cpu
