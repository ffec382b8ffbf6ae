#pragma once
// Internal to mesh/: VTK's Lagrange cell types and their node order relative to Gmsh's.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The VTK Lagrange cell type of a 2D or 3D shape: VTK_LAGRANGE_TRIANGLE (69),
/// _QUADRILATERAL (70), _TETRAHEDRON (71), _HEXAHEDRON (72) or _WEDGE (73). Throws
/// std::invalid_argument for lines and pyramids (VTK 9.1 has no Lagrange pyramid).
int vtk_lagrange_cell_type(ElementType type);

/// The 13 nodes of VTK_QUADRATIC_PYRAMID (corners, then the midpoints of edges 01 12 23 30
/// 04 14 24 34) as local nodes of gpufem's order-2 pyramid (Gmsh's 14 nodes; the base's
/// centre is not among them): how a degree-2 pyramid is written.
const std::vector<int>& vtk_quadratic_pyramid_node_order();

/// VTK's node order of a Lagrange cell of this shape and order (1..4) in terms of Gmsh's:
/// entry i is the Gmsh local node (the position in a Mesh cell) that is VTK's point i.
/// Found by matching the reference coordinates of Gmsh's nodes (lagrange_reference_nodes,
/// mapped from [-1,1]^d to [0,1]^d for boxes) with the parametric coordinates of VTK's own
/// Lagrange cell of that order; computed once per shape and order and cached (thread-safe;
/// must not be called while holding a GmshSession). Throws std::logic_error if the two node
/// sets differ.
const std::vector<int>& vtk_lagrange_node_order(ElementType type, int order);

/// The node order gpufem writes in its .vtu files (marked version 1.0): VTK's, except for
/// Lagrange hexahedra of order >= 2, which a 1.0 file holds in VTK 8's order (two edges
/// swapped; VTK's reader turns them into its current order, vtkUpdateCellsV8toV9). Files
/// marked 1.0 are those every reader takes, meshio included (it refuses 2.2). Entry i is the
/// Gmsh local node that is the file's point i of the cell.
const std::vector<int>& vtk_file_node_order(ElementType type, int order);

}  // namespace gpufem
