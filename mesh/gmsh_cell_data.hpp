#pragma once
// Internal to mesh/: a mesh file's $ElementData sections, which Gmsh reads into
// post-processing views, as fields of the extracted cells (Mesh::cell_fields).
#include <cstddef>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Whether Gmsh holds post-processing views (a mesh file's $NodeData or $ElementData).
bool gmsh_has_views();

/// The current Gmsh model's ElementData views (their first step) as cell fields, by the
/// views' names; cell c is the element with Gmsh tag cell_tags[c]. Values on other elements
/// (boundary facets) are ignored; a cell the view gives no value is NaN and counted in
/// CellField::missing. A GmshSession must be held.
std::vector<CellField> gmsh_element_data(const std::vector<std::size_t>& cell_tags);

}  // namespace gpufem
