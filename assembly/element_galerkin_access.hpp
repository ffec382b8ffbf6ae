#pragma once
// How the element Galerkin kernels (element_galerkin_kernels.hpp) read a cell's matrix entry
// and whether a local node is a Dirichlet node: from cell-major matrices with the system's
// mask, or from the lma format's stored (interleaved) matrices. Shared by cpu/ and cuda/.
#include <cstdint>

#include "assembly/lma_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Cell-major npe x npe matrices (row-major per cell), Dirichlet nodes from a per-node mask
/// (null: none) through the cells' node lists.
template <typename V>
struct CellMajorElements {
    const V* ke;
    const index_type* cell_nodes;
    const std::uint8_t* mask;
    int npe;

    GPUFEM_HOST_DEVICE V entry(long long e, int i, int j) const { return ke[(e * npe + i) * npe + j]; }
    GPUFEM_HOST_DEVICE bool fixed(long long e, int i) const
    {
        return mask && mask[cell_nodes[e * npe + i]] != 0;
    }
};

/// The lma format's storage: interleaved, cell e at slot e, symmetric ones packed by rows;
/// Dirichlet nodes stored as ~node in the connectivity.
template <typename V>
struct StoredElements {
    LmaArgs<V> s;

    GPUFEM_HOST_DEVICE V entry(long long e, int i, int j) const
    {
        return s.matrices[lma_entry_index(s.npe, s.symmetric, i, j) * static_cast<long long>(s.stride) + e];
    }
    GPUFEM_HOST_DEVICE bool fixed(long long e, int i) const
    {
        return s.connectivity[i * static_cast<long long>(s.stride) + e] < 0;
    }
};

}  // namespace gpufem
