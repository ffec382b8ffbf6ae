#pragma once
// SELL-P (Anzt et al. 2015, §3.1): sliced ELLPACK whose slices of b rows are each padded to the
// slice's longest row rounded up to a multiple of t, the threads that share a row; optionally
// the rows are first sorted by length within windows of sigma rows (SELL-C-sigma). The same
// layout with t = 1, sigma = 1 and padding column -1 is cuSPARSE's sliced ELL.
// Conversion and SpMV are declared here once, implemented in cpu/ and cuda/sellp_kernels.
#include <cstddef>
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/format_build.hpp"

namespace gpufem {

/// What the padding entries' column index is.
enum class SellpPadding {
    valid_column,  ///< the row's last column (min(row, cols - 1) for an empty row): harmless
    minus_one      ///< -1, as cusparseCreateSlicedEll expects
};

/// A matrix in SELL-P layout on one executor. Row r (in slice order) of slice s = r / slice,
/// l = r % slice, has its k-th entry at slice_ptr[s] + k * slice + l (column-major within
/// the slice); the slice width (slice_ptr[s + 1] - slice_ptr[s]) / slice is a multiple of
/// threads. The last slice is padded with empty rows up to num_slices * slice rows.
template <typename V>
struct Sellp {
    index_type rows = 0;
    index_type cols = 0;
    index_type slice = 32;        ///< b: rows per slice
    int threads = 1;              ///< t: threads per row, a power of two <= 32
    index_type sigma = 1;         ///< sorting window (1 = original order)
    index_type num_slices = 0;
    std::size_t nnz = 0;          ///< entries of the CSR matrix
    std::int64_t entries = 0;     ///< stored entries, padding included (= slice_ptr[num_slices])
    Array<index_type> slice_ptr;  ///< num_slices + 1 offsets into col_idx / values
    Array<index_type> col_idx;
    Array<V> values;
    /// Row r in slice order is row row_perm[r] of the matrix (sigma > 1); empty otherwise.
    Array<index_type> row_perm;

    /// Bytes held by the arrays.
    std::size_t bytes_stored() const
    {
        return slice_ptr.bytes() + col_idx.bytes() + values.bytes() + row_perm.bytes();
    }
};

/// Threads per row chosen when FormatOptions::sellp_threads is 0: the smallest power of two
/// >= mean row length / 8, at most 32 (about 8 multiply-adds per thread; FE matrices with
/// 27 entries per row get t = 4 and ~4% padding from the rounding).
int sellp_auto_threads(double mean_row_length);

/// Converts CSR to SELL-P on the matrix's executor. threads must be a power of two in
/// [1, 32], slice and sigma >= 1; throws std::invalid_argument otherwise, and also when the
/// padded layout exceeds 32-bit offsets or cannot be allocated (with the memory it needs).
template <typename V>
Sellp<V> convert_to_sellp(const Csr<V>& matrix, index_type slice, int threads, index_type sigma,
                          SellpPadding padding = SellpPadding::valid_column);

/// Minimal bytes one SpMV over s must move: the stored entries of the real rows (padding
/// included), slice pointers, row permutation, x once and y written once.
template <typename V>
std::size_t sellp_spmv_min_bytes(const Sellp<V>& s);

/// Stored entries beyond the CSR matrix's, in percent of its entries.
template <typename V>
double sellp_padding_percent(const Sellp<V>& s);

#define GPUFEM_KERNEL_LIST "linalg/sellp_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Options of the `sellp` format (format_options.sellp, Anzt et al. 2015, §3.1).
struct SellpOptions {
    index_type slice = 32;  ///< rows per slice (b)
    int threads_per_row = 0;  ///< t, a power of two <= 32 (0: sellp_auto_threads)
    index_type sigma = 1;   ///< sorting window in rows (1: none; > 1: SELL-C-sigma)
};

/// Options of the `cusparse-sell` format (format_options.cusparse-sell).
struct CusparseSellOptions {
    index_type slice = 32;  ///< rows per slice
};

/// The `sellp` format built from CSR on the matrix's executor.
template <typename V>
FormatBuild<V> build_sellp_format(Csr<V> matrix, const SellpOptions& options);

/// The `cusparse-sell` format: cuSPARSE's sliced ELL (cuda only; throws elsewhere).
template <typename V>
FormatBuild<V> build_cusparse_sell_format(Csr<V> matrix, const CusparseSellOptions& options);

}  // namespace gpufem
