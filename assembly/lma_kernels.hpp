#pragma once
// Kernels of the LMA (local matrix approach) operator: declared once, implemented in
// cpu/lma_kernels.cpp and cuda/lma_kernels.cu.
//
// Layout ("element-interleaved"): of num_cells cells at positions p (the operator's order,
// e.g. sorted by colour), entry k of the cell at position p is at k * num_cells + p, for both
// the matrices (k = i * npe + j, or the packed upper-triangle index when symmetric) and the
// connectivity (k = local node i). One thread per cell reads consecutive addresses.
#include <cstdint>

#include "assembly/host_device.hpp"
#include "linalg/executor.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Index of entry (i, j), i <= j, of an npe x npe upper triangle packed row by row.
GPUFEM_HOST_DEVICE inline int lma_packed_index(int npe, int i, int j)
{
    return i * npe - i * (i - 1) / 2 + (j - i);
}

/// Matrix entries stored per cell: npe^2, or npe (npe + 1) / 2 when symmetric.
inline int lma_entries_per_cell(int npe, bool symmetric)
{
    return symmetric ? npe * (npe + 1) / 2 : npe * npe;
}

/// Raw view of the operator's data handed to the apply kernels.
template <typename V>
struct LmaArgs {
    int npe;
    bool symmetric;
    index_type num_cells;              ///< stride of the interleaved arrays
    const index_type* connectivity;    ///< interleaved: node of local i at position p
    const V* matrices;                 ///< interleaved element matrices
    const std::uint8_t* mask;          ///< Dirichlet mask per node, or nullptr
};

namespace kernels::cpu {
/// out (interleaved) from cell-major ke (num_cells * npe * npe, row-major per cell): position
/// p takes cell order[p]. Symmetric: only i <= j is kept.
template <typename V>
void lma_interleave(const Executor& exec, index_type num_cells, int npe, bool symmetric,
                    const index_type* order, const V* ke, V* out);
/// diag[node] = sum over cells and local i with that node of K_e(i, i) (assembled diagonal).
template <typename V>
void lma_diagonal(const Executor& exec, const LmaArgs<V>& a, index_type num_nodes, V* diag);
/// y = beta y (beta == 0: y = 0 whatever it held), then on masked rows y += alpha diag x.
template <typename V>
void lma_prepare(const Executor& exec, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const std::uint8_t* mask, const V* diag);
/// For the cells at positions [begin, end): y += alpha P^T K_e P (x with masked nodes zeroed),
/// masked rows skipped. atomic: cells may share nodes (sequential on the CPU); otherwise
/// they must not (the colour variant: cells in parallel).
template <typename V>
void lma_apply_cells(const Executor& exec, const LmaArgs<V>& a, index_type begin,
                     index_type end, V alpha, const V* x, V* y, bool atomic);
}  // namespace kernels::cpu

namespace kernels::cuda {
/// Same contracts as the CPU versions; one thread per (cell, entry) for lma_interleave, one
/// thread per cell for lma_diagonal (atomicAdd) and lma_apply_cells, one per node for
/// lma_prepare. All asynchronous on the executor's stream.
template <typename V>
void lma_interleave(const Executor& exec, index_type num_cells, int npe, bool symmetric,
                    const index_type* order, const V* ke, V* out);
template <typename V>
void lma_diagonal(const Executor& exec, const LmaArgs<V>& a, index_type num_nodes, V* diag);
template <typename V>
void lma_prepare(const Executor& exec, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const std::uint8_t* mask, const V* diag);
template <typename V>
void lma_apply_cells(const Executor& exec, const LmaArgs<V>& a, index_type begin,
                     index_type end, V alpha, const V* x, V* y, bool atomic);
}  // namespace kernels::cuda

}  // namespace gpufem
