#pragma once
// p-multigrid's coarse operators from element matrices: each cell's degree-k matrix K_e
// projected onto a lower-degree space of the same cell, P^T K_e P (P the reference
// interpolation, the same for every cell), added into the coarse CSR matrix; or, for an
// h-level, onto its parent cell of a nested coarser mesh (P chosen by the cell's child index).
#include <cstdint>

#include "assembly/lma_kernels.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Which coarse cell and which projection each cell takes (on the kernels' executor): null
/// arrays for a p-level (the cell itself, the one P); for an h-level the parent cell on the
/// coarser mesh and the child index choosing P among the children's.
struct CellCoarsening {
    const index_type* parent = nullptr;
    const std::uint8_t* child = nullptr;

    GPUFEM_HOST_DEVICE long long coarse_cell(long long e) const { return parent ? parent[e] : e; }
    GPUFEM_HOST_DEVICE int child_of(long long e) const { return child ? child[e] : 0; }
};

#define GPUFEM_ELEMENT_GALERKIN_KERNELS(V, PREFIX, BODY)                                      \
    /** values[cell_to_csr[E ncl^2 + a ncl + b]] += sum_ij p[i ncl + a] k_ij p[j ncl + b]   \
        for every cell e < cells and coarse pair (a, b): E the cell's coarse cell and p its    \
        interpolation, npe x ncl (coarsening: e and p itself for a p-level; the parent and    \
        p + child npe ncl for an h-level); k_ij = ke[e npe^2 + i npe + j], the cells' npe x    \
        npe element matrices (row-major), with the rows and columns of Dirichlet nodes        \
        (mask[cells[e npe + i]] != 0; mask may be null) zeroed but their diagonal kept, as    \
        the system's elimination does. Summed over the cells this is R A P of the eliminated  \
        matrix A. Both compute K_e P first, then P^T (K_e P) (npe ncl (npe + ncl) products    \
        per cell). cpu: cells in parallel, each cell's products into a buffer, then added in  \
        cell order (deterministic). cuda: a block per group of cells, K_e P in shared memory,  \
        atomicAdd. */                                                                        \
    PREFIX void element_galerkin_add(const Executor& exec, index_type cells, int npe, int ncl, \
                                     const V* ke, const index_type* cell_nodes,                \
                                     const std::uint8_t* mask, const V* p,                     \
                                     const CellCoarsening& coarsening,                       \
                                     const index_type* cell_to_csr, V* values) BODY          \
    /** The same from the lma format's stored matrices (LmaArgs: interleaved, cells in their \
        own order, Dirichlet nodes as ~node in the connectivity) instead of cell-major ones. */ \
    PREFIX void element_galerkin_add_stored(const Executor& exec, index_type cells,           \
                                            const LmaArgs<V>& stored, int ncl, const V* p,    \
                                            const CellCoarsening& coarsening,                 \
                                            const index_type* cell_to_csr, V* values) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_ELEMENT_GALERKIN_KERNELS)

}  // namespace gpufem
