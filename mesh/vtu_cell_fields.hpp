#pragma once
// A cell array of a .vtu file on the same mesh as a gpufem mesh, matched to its cells by
// their centroids (the mean of each cell's corners), so that the .vtu's cell order is free.
#include <string>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The cell array `name` of the .vtu `file` as a field of the mesh's cells: each mesh cell
/// takes the value of the .vtu cell whose corners' mean lies at its own (within 1e-6 of the
/// cell's size). Throws MeshSourceError naming `key`, the file and the field: an unreadable
/// file, no such cell array (with those it has), another number of cells, or a mesh cell with
/// no .vtu cell there (the file is not on the same mesh).
CellField read_vtu_cell_field(const Mesh& mesh, const std::string& file, const std::string& name, const std::string& key);

}  // namespace gpufem
