#pragma once
// Kernels of the partial-assembly (`pa`) operator on quadrilaterals and hexahedra: declared
// once, implemented in cpu/pa_kernels.cpp and cuda/pa_kernels.cu.
//
// A Q_k cell's nodes and the Gauss points of its rule are tensor products of k + 1 points on
// [-1, 1] in each direction. The operator keeps, per cell, its nodes in lexicographic order
// (x fastest; ~node for a Dirichlet node, as the lma format does) and, per quadrature point,
// the geometric factors of point_geometry (assembly/element_geometry.hpp) without the load:
// the packed symmetric G = w |det J| J^-1 kappa J^-T and, with lower-order terms,
// beta = w |det J| J^-1 b and w |det J| c. An apply then computes, cell by cell, the reference
// gradients (and values) of x at the points by one-dimensional contractions with the tables
// B (basis values) and D (derivatives), applies the factors, and contracts back
// (sum factorisation: O(k^{d+1}) work per cell instead of the element matrix's O(k^{2d})).
#include <cstdint>

#include "assembly/element_data.hpp"
#include "assembly/element_galerkin_kernels.hpp"
#include "assembly/geometry_check_kernels.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/executor.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Factors stored per quadrature point: the packed G (dim (dim + 1) / 2), then with the
/// lower-order terms beta (dim) and w |det J| c.
GPUFEM_HOST_DEVICE constexpr int pa_point_components(int dim, bool lower_order)
{
    return dim * (dim + 1) / 2 + (lower_order ? dim + 1 : 0);
}

/// Raw view of the partial-assembly operator's data handed to the kernels.
template <typename V>
struct PaArgs {
    int dim;             ///< 2 or 3
    int p1;              ///< nodes per direction (degree + 1)
    int q1;              ///< quadrature points per direction
    bool lower_order;    ///< convection or reaction factors stored
    index_type cells;
    const index_type* nodes;  ///< [e][l]: p1^dim per cell, lexicographic, ~node if Dirichlet
    /// [c][e][q]: component c of point q (lexicographic) of cell e, components
    /// pa_point_components(dim, lower_order)
    const V* factors;
    const V* basis;       ///< B[q][i]: the 1D basis function i at the 1D point q (q1 x p1)
    const V* derivative;  ///< D[q][i]: its derivative there
    /// Null: factors per point, as above. Otherwise the factors per cell: every cell's are the
    /// same at all its points up to the point's quadrature weight (an affine cell with
    /// coefficients constant on it), factors holds [c][e] without the weight, and point q's
    /// factor is that times point_weights[q] (lexicographic q).
    const V* point_weights = nullptr;
};

/// Nodes per cell of a.
template <typename V>
GPUFEM_HOST_DEVICE inline int pa_nodes_per_cell(const PaArgs<V>& a)
{
    return a.dim == 2 ? a.p1 * a.p1 : a.p1 * a.p1 * a.p1;
}

/// Quadrature points per cell of a.
template <typename V>
GPUFEM_HOST_DEVICE inline int pa_points_per_cell(const PaArgs<V>& a)
{
    return a.dim == 2 ? a.q1 * a.q1 : a.q1 * a.q1 * a.q1;
}

/// Factor component c of lexicographic point q of cell e, stored per point or per cell.
template <typename V>
GPUFEM_HOST_DEVICE inline V pa_factor(const PaArgs<V>& a, int c, index_type e, int q)
{
    if (a.point_weights) return a.factors[static_cast<long long>(c) * a.cells + e] * a.point_weights[q];
    return a.factors[(static_cast<long long>(c) * a.cells + e) * pa_points_per_cell(a) + q];
}

/// Which nodes' values an apply reads.
enum class PaColumns : int {
    free,       ///< the operator: Dirichlet nodes' values count as zero
    dirichlet,  ///< the lifting of Dirichlet data: only the Dirichlet nodes' values are read
};

#define GPUFEM_KERNEL_LIST "assembly/pa_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
