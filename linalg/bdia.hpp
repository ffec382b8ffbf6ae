#pragma once
// bDIA (Wang, Ren & Tian 2013): banded storage of a (bandwidth-reduced) square matrix. The
// paper keeps one band of d diagonals for the whole matrix, n x d column-major, every entry of
// the band stored (zeros included) so that rows read consecutive values and consecutive windows
// of x; it notes that on a structured grid the band degenerates into separate diagonals with
// empty ones between them (its DIA case). Here each slab of bdia_slab rows (the rows one CUDA
// block computes) keeps its own bands: the diagonals its rows touch, runs of them separated by
// more than a gap of empty diagonals stored apart. After RCM the band is narrow where the level
// sets are small and wide in the middle of the domain, and a 3D grid numbered by lines and
// planes touches 27 diagonals in nine runs of three within a band of two planes: bands per slab
// store what each part needs instead of the widest band everywhere. Slab s stores its bands'
// diagonals one after the other, column-major (entry k of row r0 + t at slab_ptr[s] + k *
// bdia_slab + t); every row of a slab reads the same diagonals, so each band's x window is a
// contiguous range, which the CUDA kernel stages in shared memory when the slab's windows fit.
// Declared here once; implemented in cpu/bdia_kernels.cpp and cuda/bdia_kernels.cu.
#include <cstddef>
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/format_build.hpp"

namespace gpufem {

/// Rows per slab = threads per CUDA block of the bDIA SpMV (one thread per row).
inline constexpr index_type bdia_slab = 256;

/// Default cap on the shared memory one block of the CUDA SpMV uses for its x windows: 48 KiB,
/// the most a kernel gets without opting in, and at most a quarter of an H100/H200 SM's
/// shared memory, so that four blocks (1024 threads) still fit on one SM.
inline constexpr std::size_t bdia_default_shared_bytes = 48 * 1024;

/// The narrowest mean band (diagonals per band) for which a slab stages its x windows in shared
/// memory: each x value of a window serves as many rows as its band is wide, and for narrow
/// bands the L1 cache serves that reuse without the staging's loads and barrier (the 3D Q1
/// cube's bands of three diagonals: 342 us through the cache against 383 us staged on an H100).
inline constexpr index_type bdia_staged_band_width = 8;

/// The most distinct diagonals a slab lists as bands; a slab touching more stores the whole
/// range between its lowest and highest diagonal as one band.
inline constexpr index_type bdia_listed_diagonals = 1024;

/// Default of the largest run of empty diagonals kept inside a band (stored as zeros) rather
/// than splitting it in two.
inline constexpr index_type bdia_default_gap = 2;

/// A square matrix in bDIA layout, in its own numbering, on one executor.
/// Slab s = i / bdia_slab holds bands band_ptr[s] .. band_ptr[s + 1] - 1, in increasing order
/// of their diagonals; band b covers diagonals (j - i) band_offset[b] .. band_offset[b] +
/// band_width[b] - 1. Diagonal d of band b of row i (t = i % bdia_slab) is stored at
/// values[slab_ptr[s] + (k_b + d - band_offset[b]) * bdia_slab + t], k_b the widths of the
/// slab's earlier bands; entries outside the pattern, outside 0 .. rows-1, or in the padding
/// rows of the last slab are 0.
template <typename V>
struct Bdia {
    index_type rows = 0;
    index_type half_bandwidth = 0;  ///< max |i - j| over the stored pattern
    index_type max_width = 0;       ///< most diagonals a slab stores
    index_type max_bands = 0;       ///< most bands a slab has
    index_type max_window = 0;      ///< most x values a slab's windows span (bdia_slab - 1 + width a band)
    index_type longest_row = 0;     ///< most entries a row of the matrix has
    Array<std::int64_t> slab_ptr;   ///< slabs + 1 offsets into values (multiples of bdia_slab)
    Array<index_type> band_ptr;     ///< slabs + 1 offsets into the band arrays
    Array<index_type> band_offset;  ///< per band: its first diagonal (j - i), may be < 0
    Array<index_type> band_width;   ///< per band: its number of diagonals (>= 1)
    Array<V> values;                ///< the bands, slab after slab, column-major in each
    /// CUDA: the products mark values as persisting in the L2 cache, as much of them as the
    /// device sets aside for persisting lines (BdiaOptions::l2_window).
    bool keep_in_l2 = false;

    /// Number of slabs, ceil(rows / bdia_slab).
    index_type slabs() const { return (rows + bdia_slab - 1) / bdia_slab; }
    /// Number of bands over all slabs.
    std::size_t bands() const { return band_offset.size(); }
    /// Bytes held by the arrays.
    std::size_t bytes_stored() const
    {
        return slab_ptr.bytes() + band_ptr.bytes() + band_offset.bytes() + band_width.bytes() + values.bytes();
    }
};

/// Bytes of a bDIA layout with the given number of stored values, rows and bands (the size
/// check before allocating).
template <typename V>
std::size_t bdia_bytes(std::int64_t stored_values, index_type rows, std::int64_t bands)
{
    const auto slabs = static_cast<std::size_t>((rows + bdia_slab - 1) / bdia_slab);
    return static_cast<std::size_t>(stored_values) * sizeof(V) + (slabs + 1) * sizeof(std::int64_t) +
           (slabs + 1 + 2 * static_cast<std::size_t>(bands)) * sizeof(index_type);
}

/// Converts a square CSR matrix (sorted columns) to bDIA in its current numbering, on the
/// matrix's executor (no reordering: build_bdia_format applies RCM first), runs of at most
/// gap empty diagonals kept inside a band. Throws std::invalid_argument naming the memory the
/// bands need when it exceeds max_bytes.
template <typename V>
Bdia<V> convert_to_bdia(const Csr<V>& matrix, std::size_t max_bytes, index_type gap = bdia_default_gap);

/// Options of the `bdia` format (format_options.bdia).
struct BdiaOptions {
    /// Refuse when the band storage would exceed this many bytes (0: the executor's free
    /// memory decides).
    std::size_t max_bytes = 0;
    /// The largest run of empty diagonals stored inside a band rather than splitting it.
    index_type gap = bdia_default_gap;
    /// Shared memory a CUDA block may use for its x windows (0: x read through the cache).
    std::size_t shared_bytes = bdia_default_shared_bytes;
    /// Keep the band values in the GPU's L2 cache between products (a window of persisting
    /// accesses on them): for a matrix about the L2's size, re-read every iteration.
    bool l2_window = false;
};

/// The `bdia` format: the matrix's own numbering when its bands store little more than its
/// longest row a row, else reverse Cuthill-McKee (kept when it stores fewer values), then the band
/// storage; the permutation is returned with the operator.
template <typename V>
FormatBuild<V> build_bdia_format(Csr<V> matrix, const BdiaOptions& options);

/// Band entries one SpMV of a `bdia` operator (built by build_bdia_format) multiplies: for
/// every row its slab's stored diagonals, band zeros included (the n * d of Wang, Ren & Tian
/// 2013, and the flop count 2 n d of Reguly & Giles 2012 with d per slab; the padding rows of
/// the last slab left out). 0 for an operator of any other format.
template <typename V>
std::int64_t bdia_band_entries(const LinearOperator<V>& op);

#define GPUFEM_KERNEL_LIST "linalg/bdia_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
