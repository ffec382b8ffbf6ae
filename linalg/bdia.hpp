#pragma once
// bDIA (Wang, Ren & Tian 2013): banded storage of a (bandwidth-reduced) square matrix. The
// paper keeps one band of d diagonals for the whole matrix, n x d column-major, every entry of
// the band stored (zeros included) so that rows read consecutive values and consecutive windows
// of x. Here the band is chosen per slab of bdia_slab rows (the rows one CUDA block computes):
// slab s stores the diagonals offset[s] .. offset[s] + width[s] - 1 of its rows, column-major
// (entry k of row r0 + t at slab_ptr[s] + k * bdia_slab + t). Every row of a slab reads the
// same diagonals, so the slab's x window is the contiguous range [r0 + offset[s], r0 +
// bdia_slab - 1 + offset[s] + width[s]) of bdia_slab + width[s] - 1 entries, which the CUDA
// kernel stages in shared memory. After RCM the band is narrow where the level sets are small
// and wide in the middle of the domain; a width per slab stores what each part needs instead of
// the widest band everywhere (measured on shuffled 9-point and 27-point grids: 60-70% of it).
// Declared here once; implemented in cpu/bdia_kernels.cpp and cuda/bdia_kernels.cu.
#include <cstddef>
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/format_build.hpp"

namespace gpufem {

/// Rows per slab = threads per CUDA block of the bDIA SpMV (one thread per row).
inline constexpr index_type bdia_slab = 256;

/// Default cap on the shared memory one block of the CUDA SpMV uses for its x window: 48 KiB,
/// the most a kernel gets without opting in, and at most a quarter of an H100/H200 SM's
/// shared memory, so that four blocks (1024 threads) still fit on one SM.
inline constexpr std::size_t bdia_default_shared_bytes = 48 * 1024;

/// A square matrix in bDIA layout, in its own numbering, on one executor.
/// Value k of row i (slab s = i / bdia_slab, t = i % bdia_slab) is A(i, i + offset[s] + k)
/// for 0 <= k < width[s], stored at values[slab_ptr[s] + k * bdia_slab + t]; entries outside
/// the pattern, outside 0 .. rows-1, or in the padding rows of the last slab are 0.
template <typename V>
struct Bdia {
    index_type rows = 0;
    index_type half_bandwidth = 0;  ///< max |i - j| over the stored pattern
    index_type max_width = 0;       ///< widest slab band (diagonals)
    Array<std::int64_t> slab_ptr;   ///< slabs + 1 offsets into values (multiples of bdia_slab)
    Array<index_type> offset;       ///< per slab: first stored diagonal (j - i), may be < 0
    Array<index_type> width;        ///< per slab: number of stored diagonals (0 = empty slab)
    Array<V> values;                ///< the bands, slab after slab, column-major in each

    /// Number of slabs, ceil(rows / bdia_slab).
    index_type slabs() const { return (rows + bdia_slab - 1) / bdia_slab; }
    /// Bytes held by the arrays.
    std::size_t bytes_stored() const
    {
        return slab_ptr.bytes() + offset.bytes() + width.bytes() + values.bytes();
    }
};

/// Bytes of a bDIA layout with the given number of stored values and rows (the size check
/// before allocating).
template <typename V>
std::size_t bdia_bytes(std::int64_t stored_values, index_type rows)
{
    const auto slabs = static_cast<std::size_t>((rows + bdia_slab - 1) / bdia_slab);
    return static_cast<std::size_t>(stored_values) * sizeof(V) + (slabs + 1) * sizeof(std::int64_t) +
           2 * slabs * sizeof(index_type);
}

/// Converts a square CSR matrix (sorted columns) to bDIA in its current numbering, on the
/// matrix's executor (no reordering: build_bdia_format applies RCM first). Throws
/// std::invalid_argument naming the memory the band needs when it exceeds max_bytes.
template <typename V>
Bdia<V> convert_to_bdia(const Csr<V>& matrix, std::size_t max_bytes);

/// Options of the `bdia` format (format_options.bdia).
struct BdiaOptions {
    /// Refuse when the band storage would exceed this many bytes (0: the executor's free
    /// memory decides).
    std::size_t max_bytes = 0;
};

/// The `bdia` format: reverse Cuthill-McKee (kept when it narrows the band), then the band
/// storage; the permutation is returned with the operator.
template <typename V>
FormatBuild<V> build_bdia_format(Csr<V> matrix, const BdiaOptions& options);

/// Band entries one SpMV of a `bdia` operator (built by build_bdia_format) multiplies: for
/// every row its slab's width, band zeros included (the n * d of Wang, Ren & Tian 2013, and
/// the flop count 2 n d of Reguly & Giles 2012 with d per slab; the padding rows of the last
/// slab left out). 0 for an operator of any other format.
template <typename V>
std::int64_t bdia_band_entries(const LinearOperator<V>& op);

#define GPUFEM_KERNEL_LIST "linalg/bdia_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
