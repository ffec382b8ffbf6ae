#pragma once
// The mesh worker's side of the built-in shapes: the ones Gmsh meshes (the disk).
#include <string>

#include "mesh/shape_catalogue.hpp"

namespace gpufem {

/// Builds the geometry and physical groups of a shape Gmsh meshes (the disk) in the current
/// Gmsh model (a GmshSession must be held) and meshes it. Throws MeshSourceError naming
/// `source` if Gmsh's mesh holds any cell of another type than requested (e.g. triangles left
/// in a quadrilateral mesh).
void mesh_shape(const ShapeRequest& request, const std::string& source);

}  // namespace gpufem
