#pragma once
// Writing meshes with point and cell fields as VTK XML unstructured grids (.vtu), via VTK.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// A named field with one value per node (point data) or per cell (cell data).
struct MeshField {
    std::string name;
    std::vector<double> values;
};

/// Writes mesh + fields to a .vtu file (binary appended, zlib-compressed). First-order
/// meshes are written as linear VTK cells; meshes of order 2..4 as VTK Lagrange cells
/// (VTK_LAGRANGE_TRIANGLE, _QUADRILATERAL, _TETRAHEDRON, _HEXAHEDRON) with the nodes of each
/// cell permuted from Gmsh's order to VTK's, so ParaView shows the high-order field. The cell data
/// 'group' (Int32, each cell's physical tag) is always written. Field sizes are checked
/// (num_nodes / num_cells values). The file is written under a temporary name in the same
/// folder and renamed, so a failure leaves no partial file.
void write_vtu(const std::filesystem::path& path, const Mesh& mesh,
               const std::vector<MeshField>& point_fields,
               const std::vector<MeshField>& cell_fields);

}  // namespace gpufem
