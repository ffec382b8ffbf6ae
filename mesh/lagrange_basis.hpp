#pragma once
// Lagrange basis functions of any supported order on the reference shapes, in Gmsh's node
// order (the order of Mesh::cells), all gpufem's own (the tests check them against Gmsh's):
// every shape but the pyramid at order 1, triangles and tetrahedra at order 2
// (low_order_bases.hpp), triangles and tetrahedra at orders 3 and 4 and pyramids at orders
// 1 to 4 (the inverse Vandermonde matrix of their spaces at Gmsh's nodes,
// vandermonde_basis.hpp), lines, quadrilaterals and hexahedra to order 4 as products of the
// line's polynomials at Gmsh's nodes (the same functions as Gmsh's) and from order 5 on GLL
// nodes (mesh/gll_points.hpp), prisms of order 2..4 (Gmsh 4.8 has none above order 2: the
// order-k triangle's basis times the line's, their nodes the 6 corners in Gmsh's order, then
// the others by level, row, column). The reference nodes are Gmsh's, from the table read when
// gpufem is built (gmsh_reference_table.hpp): no run opens Gmsh's library for a basis.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {


/// Values and reference gradients of the complete Lagrange basis of `order` on `type` at
/// reference points (dim coordinates per point; Gmsh's reference shapes: simplices with a
/// vertex at 0 and unit legs, boxes [-1,1]^d). values: [p][i]; gradients: [p][i][c].
void lagrange_basis(ElementType type, int order, const std::vector<double>& points,
                    std::vector<double>& values, std::vector<double>& gradients);

/// Reference coordinates of the nodes of the Lagrange element (nodes * dim values): those of
/// equispaced_reference_nodes, or for elements with GLL nodes (has_gll_nodes) the GLL points
/// in their place, in the same order.
std::vector<double> lagrange_reference_nodes(ElementType type, int order);

/// Reference coordinates of the equispaced nodes of the Lagrange element of this shape and
/// order, in Gmsh's node order (vertices first, then edges, faces, the inside); read from
/// Gmsh once per shape and order, then remembered (safe to call from several threads).
std::vector<double> equispaced_reference_nodes(ElementType type, int order);

}  // namespace gpufem
