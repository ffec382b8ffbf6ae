#pragma once
// Internal to mesh/: VTK's Lagrange cell types and their node order relative to Gmsh's.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The VTK Lagrange cell type of a 2D or 3D shape: VTK_LAGRANGE_TRIANGLE (69),
/// _QUADRILATERAL (70), _TETRAHEDRON (71) or _HEXAHEDRON (72). Throws std::invalid_argument
/// for lines.
int vtk_lagrange_cell_type(ElementType type);

/// VTK's node order of a Lagrange cell of this shape and order (1..4) in terms of Gmsh's:
/// entry i is the Gmsh local node (the position in a Mesh cell) that is VTK's point i.
/// Found by matching the reference coordinates of Gmsh's nodes (lagrange_reference_nodes,
/// mapped from [-1,1]^d to [0,1]^d for boxes) with the parametric coordinates of VTK's own
/// Lagrange cell of that order; computed once per shape and order and cached (thread-safe;
/// must not be called while holding a GmshSession). Throws std::logic_error if the two node
/// sets differ.
const std::vector<int>& vtk_lagrange_node_order(ElementType type, int order);

}  // namespace gpufem
