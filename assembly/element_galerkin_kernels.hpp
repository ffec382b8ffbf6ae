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

#define GPUFEM_KERNEL_LIST "assembly/element_galerkin_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
