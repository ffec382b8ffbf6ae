#pragma once
// Lagrange basis functions of any supported order on the reference shapes, from the Gmsh SDK
// (getBasisFunctions), in Gmsh's node order — the order of Mesh::cells. Prisms of order 2..4
// are gpufem's own (Gmsh 4.8 has none above order 2): the order-k triangle's basis times the
// line's, their nodes the 6 corners in Gmsh's order, then the others by level, row, column.
// Quadrilaterals and hexahedra of order 2..4 are products of the line's polynomials at
// Gmsh's nodes (the same functions, evaluated without Gmsh); lines, quadrilaterals and
// hexahedra of order 5..8 have GLL nodes (mesh/gll_points.hpp) in Gmsh's node order, their
// basis the products of the line's polynomials on them.
// Each call to Gmsh holds the
// Gmsh library briefly (a GmshSession, serialised process-wide): do not call these while
// holding a GmshSession yourself.
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
