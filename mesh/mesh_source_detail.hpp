#pragma once
// Internal to mesh/: the checks and names shared by the two halves of loading a mesh, the one
// in gpufem (mesh_source.cpp) and the one that runs Gmsh in the mesh worker
// (gmsh_mesh_source.cpp).
#include <chrono>
#include <string>

#include "mesh/mesh_source.hpp"
#include "mesh/shape_catalogue.hpp"

namespace gpufem::mesh_source_detail {

/// Throws unless the refinement count is sensible (0..10).
void check_refine(int refine, const std::string& context);

/// Throws unless the element order is one gpufem handles (1..8; each shape's own limit is
/// check_degree_for_cells').
void check_order(int order, const std::string& context);

/// "h=0.1" with the shortest decimal form.
std::string size_text(double size);

/// Seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start);

/// How messages name a built-in shape: "shape unit_cube (hexahedron, h=0.1, refine 0)"; the
/// refinement and order are checked.
std::string checked_shape_source(const MeshSpec& spec, const ShapeRequest& request);

}  // namespace gpufem::mesh_source_detail
