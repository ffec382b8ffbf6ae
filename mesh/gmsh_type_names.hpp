#pragma once
// Internal to mesh/ (the mesh worker's side): MSH element types named for messages.
#include <string>
#include <vector>

namespace gpufem {

/// A plural description of an MSH element type for messages: "triangles", "hexahedra of
/// order 3", "prisms", or "'Quadrilateral 8' elements (Gmsh type 16)" for the others.
/// Needs an initialised Gmsh for types other than the complete Lagrange ones and the
/// first-order prisms, pyramids and points.
std::string gmsh_type_plural(int gmsh_type);

/// The plural descriptions of several types joined as "a, b and c".
std::string gmsh_types_plural(const std::vector<int>& gmsh_types);

}  // namespace gpufem
