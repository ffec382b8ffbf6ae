#pragma once
// Internal to mesh/: VTK's Lagrange cell types and their node order relative to Gmsh's.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The VTK Lagrange cell type of a 2D or 3D shape (its table's vtk_lagrange_type):
/// VTK_LAGRANGE_TRIANGLE (69), _QUADRILATERAL (70), _TETRAHEDRON (71), _HEXAHEDRON (72) or
/// _WEDGE (73). Throws std::invalid_argument for lines and pyramids (VTK 9.1 has no Lagrange
/// pyramid).
int vtk_lagrange_cell_type(ElementType type);

/// For a shape without a VTK Lagrange cell: VTK's quadratic cell's points (the corners, then
/// the midpoints of the table's vtk_quadratic_edges) as local nodes of the degree-2 element,
/// how such a cell of degree 2 is written (the pyramid: VTK_QUADRATIC_PYRAMID's 13 points, not
/// the base's centre); remembered per shape (must not be called while holding a
/// GmshSession). Throws std::invalid_argument for a shape without such a cell.
const std::vector<int>& vtk_quadratic_node_order(ElementType type);

/// VTK's node order of a Lagrange cell of this shape and order (1..8) in terms of Gmsh's:
/// entry i is the Gmsh local node (the position in a Mesh cell) that is VTK's point i.
/// Found by matching the reference coordinates of Gmsh's nodes (equispaced_reference_nodes,
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
