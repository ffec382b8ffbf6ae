#pragma once
// Internal to mesh/: the reference nodes and Lagrange bases of order 1 and 2 that gpufem
// computes itself, in Gmsh's node order, so that the common elements (P1, P2, Q1, Q2) never
// load Gmsh's library (lagrange_basis.hpp takes the others from Gmsh). The tests check them
// against Gmsh's.
#include <optional>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The equispaced reference nodes (dim coordinates each, Gmsh's reference shape and node
/// order) of every shape at order 1 (its corners), and of the line, triangle,
/// quadrilateral, tetrahedron and hexahedron at order 2 (the corners, then the midpoints of
/// Gmsh's edges, the centres of its quadrilateral faces and the hexahedron's centre); none
/// otherwise.
std::optional<std::vector<double>> low_order_reference_nodes(ElementType type, int order);

/// The first-order basis of any shape (its ShapeTraits::linear_basis, the pyramid's rational
/// one included) at reference points (dim coordinates each): values one per point and corner,
/// gradients dim per point and corner.
void linear_shape_basis(ElementType type, const std::vector<double>& points, std::vector<double>& values,
                        std::vector<double>& gradients);

/// Whether simplex_basis takes this element: triangles and tetrahedra of order 1 and 2.
bool has_simplex_basis(ElementType type, int order);

/// The Lagrange basis of a triangle or tetrahedron of order 1 or 2 at reference points (dim
/// coordinates each), in the node order of low_order_reference_nodes: from the barycentric
/// coordinates, l_i for order 1, l_i (2 l_i - 1) at corners and 4 l_a l_b at edges for order 2.
/// values: one per point and node; gradients: dim per point and node.
void simplex_basis(ElementType type, int order, const std::vector<double>& points, std::vector<double>& values,
                   std::vector<double>& gradients);

}  // namespace gpufem
