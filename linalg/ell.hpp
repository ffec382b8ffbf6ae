#pragma once
// ELLPACK and ELLPACK-R (Vázquez et al. 2010, 2011): every row padded to the longest one,
// stored column-major so that consecutive threads (rows) read consecutive addresses; ELLPACK-R
// adds the row lengths and stops at them. The conversion from CSR and the SpMV are declared
// here once and implemented in cpu/ell_kernels.cpp and cuda/ell_kernels.cu.
#include <cstddef>
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

/// Rows are padded to a multiple of this, so that every stored column starts on a 128-byte
/// boundary (4-byte entries) and one warp's 32 rows map onto whole 32-byte sectors.
inline constexpr index_type ell_row_alignment = 32;

/// Rows whose x_i y_i the product fused with the dot adds into one partial sum (a CUDA block).
inline constexpr index_type ell_dot_rows = 256;

/// Stride between two stored columns: rows rounded up to ell_row_alignment.
inline index_type ell_stride(index_type rows)
{
    const std::int64_t a = ell_row_alignment;
    return checked_index((static_cast<std::int64_t>(rows) + a - 1) / a * a, "ELL stride");
}

/// A matrix in ELLPACK(-R) layout on one executor. Entry k of row i sits at k * stride + i
/// (k < width). Padding entries (k >= the row's length, and rows >= rows up to stride) hold
/// value 0 and a valid column (the row's last column, or min(row, cols - 1) for an empty
/// row), so a kernel without row lengths reads them harmlessly.
template <typename V>
struct Ell {
    index_type rows = 0;
    index_type cols = 0;
    index_type width = 0;        ///< stored entries per row: the longest row of the CSR matrix
    index_type stride = 0;       ///< ell_stride(rows)
    std::size_t nnz = 0;         ///< entries of the CSR matrix (stored entries minus padding)
    Array<index_type> col_idx;   ///< width * stride column indices, column-major
    Array<V> values;             ///< width * stride values, column-major
    bool with_lengths = false;   ///< ELLPACK-R: row_len holds every row's length
    Array<index_type> row_len;   ///< rows entries (ELLPACK-R); empty for plain ELLPACK

    /// Bytes held by the arrays.
    std::size_t bytes_stored() const { return col_idx.bytes() + values.bytes() + row_len.bytes(); }
    /// Stored entries (width * stride, padding included).
    std::size_t entries() const { return static_cast<std::size_t>(width) * stride; }
};

/// Converts CSR to ELL (row_lengths = false) or ELLPACK-R (true) on the matrix's executor;
/// throws std::invalid_argument, with the memory it needs, when the padded arrays cannot be
/// allocated.
template <typename V>
Ell<V> convert_to_ell(const Csr<V>& matrix, bool row_lengths);

#define GPUFEM_KERNEL_LIST "linalg/ell_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
