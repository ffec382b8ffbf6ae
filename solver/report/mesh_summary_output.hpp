#pragma once
// A mesh summary (mesh/mesh_summary.hpp) written for people (`gpufem mesh-info`) and for
// scripts (`gpufem mesh-info --json`).
#include <string>

#include <nlohmann/json.hpp>

#include "mesh/mesh_summary.hpp"

namespace gpufem {

/// The summary as aligned text lines; `file` is the mesh file as the user named it.
std::string mesh_summary_text(const std::string& file, const MeshSummary& summary);

/// The summary as JSON: the same facts under stable keys (file, dimension, cells,
/// cell_types, nodes, geometry_order, bounding_box, groups, cells_in_no_region,
/// unusable_groups, quality).
nlohmann::json mesh_summary_json(const std::string& file, const MeshSummary& summary);

}  // namespace gpufem
