#pragma once
// The structure of a mesh read from bytes gpufem did not just make (a mesh cache file):
// sizes that agree with each other, known cell types, node indices within range, finite
// coordinates. Checked before anything indexes the arrays with the values read.
#include "mesh/mesh.hpp"

namespace gpufem {

/// Throws MeshSourceError saying what is inconsistent (the first problem found) unless: dim is
/// 2 or 3; the cell types are known and of that dimension; the degree is 1..4; the arrays'
/// sizes fit nodes_per_cell, the cell count and the Lagrange node counts; every node index of
/// the cells and boundary facets lies within the nodes (-1 only where a mixed mesh pads a row);
/// every coordinate is finite; curved cells, if any, fit the cells (curved_cells_fit).
void check_mesh_structure(const Mesh& mesh);

}  // namespace gpufem
