#pragma once
// Internal to mesh/: the built-in shapes (unit_square, unit_cube, l_shape, disk) meshed by Gmsh.
#include <string>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Element size used when a shape request gives none.
inline constexpr double default_shape_size = 0.1;

/// A built-in shape request with its defaults filled in.
struct ShapeRequest {
    std::string shape;       ///< unit_square | unit_cube | l_shape | disk
    ElementType elements;    ///< a cell type the shape supports
    double size;             ///< target element size h (> 0)
};

/// Checks a shape name, element type name ("" = the shape's default) and size (0 = default)
/// against the built-in shapes. Throws MeshSourceError naming the bad value and listing the
/// valid ones.
ShapeRequest resolve_shape(const std::string& shape, const std::string& elements, double size);

/// Builds the shape's geometry and physical groups in the current Gmsh model (a GmshSession
/// must be held) and meshes it. Throws MeshSourceError naming `source` if Gmsh's mesh holds
/// any cell of another type than requested (e.g. triangles left in a quadrilateral mesh).
void mesh_shape(const ShapeRequest& request, const std::string& source);

}  // namespace gpufem
