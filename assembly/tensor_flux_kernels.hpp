#pragma once
// Flux kernels by sum factorisation on quadrilaterals and hexahedra: the same results as the
// flux kernels (assembly/flux_kernels.hpp) and the element residual at the Dirichlet nodes,
// with u, the Jacobian and their reference gradients at a cell's points computed by
// one-dimensional contractions (O(k^4) work per hexahedron, O(k^3) per quadrilateral) instead
// of from every node at every point (O(k^6), O(k^4)).
// Declared once, implemented in cpu/tensor_flux_kernels.cpp and cuda/tensor_flux_kernels.cu.
#include <cstdint>

#include "assembly/element_data.hpp"
#include "assembly/flux_kernels.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// The most nodes per direction the tensor flux kernels take (degree 8).
inline constexpr int tensor_flux_max_p1 = 9;

/// A quadrilateral's or hexahedron's tensor structure for the flux kernels: P nodes and P points per direction,
/// the 1D tables from the nodes to the points, and where the lexicographic nodes and points
/// are in the cell's node order and in the element data's point order. For the pass at the
/// nodes the points are the nodes (B the identity, D the derivatives at the nodes).
template <typename V>
struct TensorFluxArgs {
    int p1;                  ///< nodes (and points) per direction, 3 to tensor_flux_max_p1
    const int* gmsh_of_lex;  ///< p1^dim: the cell's node at each lexicographic node
    const int* rule_of_lex;  ///< p1^dim: the element data's point at each lexicographic point
    const V* basis;          ///< B[q][i] (p1 x p1): 1D basis function i at 1D point q
    const V* derivative;     ///< D[q][i]: its derivative there
};

#define GPUFEM_KERNEL_LIST "assembly/tensor_flux_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
