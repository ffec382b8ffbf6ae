#pragma once
// Kernels of the LMA (local matrix approach) operator: declared once, implemented in
// cpu/lma_kernels.cpp and cuda/lma_kernels.cu.
//
// Layout ("element-interleaved"): cells sit at positions p of a padded sequence of `stride`
// slots (the operator's order: by colour, each colour starting at a multiple of
// lma_position_alignment). Entry k of the cell at position p is at k * stride + p, for both
// the matrices (k = i * npe + j, or the packed upper-triangle index when symmetric) and the
// connectivity (k = local node i). Consecutive cells' k-th entries are contiguous, so a warp
// that takes consecutive cells reads whole sectors. The connectivity holds the node index,
// or ~node (a negative value) for a Dirichlet node: its x value counts as zero and its row
// is skipped (symmetric elimination), with no mask read in the apply kernels. Padding
// slots hold node -1 and zero matrices and are never read by the apply kernels.
#include <cstdint>
#include <string>

#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/executor.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Each colour's first position (and the stride) is a multiple of this: 32 cells, so every
/// 32-cell tile and every entry row starts on a 256-byte boundary in double.
constexpr index_type lma_position_alignment = 32;

/// Slots of the interleaved arrays for cells in their own order: cells rounded up to
/// lma_position_alignment (the padding slots hold no cell).
inline index_type lma_stride(index_type cells)
{
    return (cells + lma_position_alignment - 1) / lma_position_alignment * lma_position_alignment;
}

/// Index of entry (i, j), i <= j, of an npe x npe upper triangle packed row by row.
GPUFEM_HOST_DEVICE inline int lma_packed_index(int npe, int i, int j)
{
    return i * npe - i * (i - 1) / 2 + (j - i);
}

/// Entry row of (i, j) in the interleaved matrices: i npe + j, or when symmetric the packed
/// index of the upper-triangle entry (either triangle's (i, j) reads it).
GPUFEM_HOST_DEVICE inline int lma_entry_index(int npe, bool symmetric, int i, int j)
{
    return !symmetric ? i * npe + j : i <= j ? lma_packed_index(npe, i, j) : lma_packed_index(npe, j, i);
}

/// The cell at slot p: order[p] (-1 for padding), or with no order (cells in their own order)
/// p itself for p < cells.
GPUFEM_HOST_DEVICE inline index_type lma_slot_cell(const index_type* order, index_type cells, index_type p)
{
    return order ? order[p] : (p < cells ? p : -1);
}

/// Matrix entries stored per cell: npe^2, or npe (npe + 1) / 2 when symmetric.
inline int lma_entries_per_cell(int npe, bool symmetric)
{
    return symmetric ? npe * (npe + 1) / 2 : npe * npe;
}

/// How the CUDA apply kernel maps threads to work (the CPU reference ignores it). All give
/// the same result to rounding; the colour scatter is bitwise reproducible with each.
enum class LmaKernel {
    automatic,  ///< chosen from npe and the storage (see lma_resolve_kernel)
    cell,       ///< one thread per cell: x_e, node indices (and the symmetric column sums) in
                ///< per-thread columns of shared memory, every stored entry read once
    tile,       ///< a block per 32-cell tile, one thread per (cell, row): x_e and node indices
                ///< staged in shared memory, rows streamed; symmetric storage reads each
                ///< packed entry twice (the second time from L1/L2)
    twin,       ///< a block per tile of 32 (or, for launches of few cells, 16 or 8) cells, one
                ///< thread group per block of 4 rows with their sums in registers; groups
                ///< visit column blocks in round-robin rounds so that the two groups reading
                ///< one packed block (symmetric storage) do so in the same round, the second
                ///< read hitting L1: every entry leaves DRAM once. npe <= 512
};

/// "auto", "cell", "tile", "twin".
const char* lma_kernel_name(LmaKernel kernel);
/// The kernel named (one of lma_kernel_name's); throws std::invalid_argument listing them.
LmaKernel lma_kernel_from_name(const std::string& name);
/// The kernel `automatic` stands for with this npe, storage and scatter (other kernels:
/// themselves).
LmaKernel lma_resolve_kernel(LmaKernel kernel, int npe, bool symmetric, bool colour);

/// Raw view of the operator's data handed to the kernels.
template <typename V>
struct LmaArgs {
    int npe;
    bool symmetric;
    index_type stride;                 ///< slots per entry row of the interleaved arrays
    const index_type* connectivity;    ///< interleaved: node (or ~node if Dirichlet) at i, p
    const V* matrices;                 ///< interleaved element matrices
};

#define GPUFEM_KERNEL_LIST "assembly/lma_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
