#pragma once
// Internal to mesh/: the Lagrange bases of order 1 (every shape but the pyramid, whose
// rational basis is vandermonde_basis.hpp's) and of triangles and tetrahedra of order 2, in
// Gmsh's node order, from closed forms. The tests check them against Gmsh's.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The first-order basis of any shape (its ShapeTraits::linear_basis) at reference points (dim
/// coordinates each): values one per point and corner, gradients dim per point and corner.
void linear_shape_basis(ElementType type, const std::vector<double>& points, std::vector<double>& values,
                        std::vector<double>& gradients);

/// Whether simplex_basis takes this element: triangles and tetrahedra of order 2.
bool has_simplex_basis(ElementType type, int order);

/// The Lagrange basis of a triangle or tetrahedron of order 2 at reference points (dim
/// coordinates each), in Gmsh's node order (gmsh_reference_table): from the barycentric
/// coordinates, l_i (2 l_i - 1) at the corners and 4 l_a l_b at the midpoint of corners a, b.
/// values: one per point and node; gradients: dim per point and node.
void simplex_basis(ElementType type, int order, const std::vector<double>& points, std::vector<double>& values,
                   std::vector<double>& gradients);

}  // namespace gpufem
