#pragma once
// Internal to assembly/: p-multigrid's transfers between two Lagrange spaces of a box mesh by
// sum factorisation (assembly/pa_transfer.hpp), declared once, implemented in
// cpu/pa_transfer_kernels.cpp and cuda/pa_transfer_kernels.cu.
//
// On a quadrilateral or hexahedron a coarser degree's basis at the finer element's nodes is
// the tensor product of a 1D table T (pf x pc: coarse 1D basis function j at fine 1D node i),
// so a cell's interpolation P_e = T (x) T (x) T is applied by one contraction per direction:
// O(pf^d pc) work per cell instead of the dense P_e's pf^d pc^d. Each fine unknown is written
// (prolongation) or read (restriction) by one cell only, its owner, so the cells together
// apply exactly P and P^T.
#include "linalg/backend_kernels.hpp"
#include "linalg/executor.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Raw view of a transfer's data handed to the kernels.
template <typename V>
struct PaTransferArgs {
    int dim;   ///< 2 or 3
    int pf;    ///< fine nodes per direction
    int pc;    ///< coarse nodes per direction
    index_type cells;
    /// [e][l]: pf^dim per cell, lexicographic (x fastest): the fine unknown, stored as ~unknown
    /// where another cell owns it
    const index_type* fine;
    /// [e][m]: pc^dim per cell, lexicographic: the coarse unknown, stored as ~unknown where it
    /// is held at zero (a coarse Dirichlet node: read as 0, nothing restricted to it)
    const index_type* coarse;
    const V* table;            ///< T[i][j], pf x pc
};

#define GPUFEM_KERNEL_LIST "assembly/pa_transfer_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
