#pragma once
// Cells and nodes named for error messages: by index (counted from 0, in the mesh's order,
// which for a Gmsh file is the file's order of its cells) and by position, which names them
// whatever the file's numbering.
#include <string>

#include "mesh/mesh.hpp"

namespace gpufem {

/// "cell 12 (counted from 0; nodes at (0, 0, 0), (0.5, 0, 0), ...)": a cell and the positions
/// of its first nodes (its corners come first).
std::string cell_text(const Mesh& mesh, long long cell);

/// "(0.5, 0, 1)": the position of a node.
std::string node_position_text(const Mesh& mesh, long long node);

}  // namespace gpufem
