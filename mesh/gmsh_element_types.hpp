#pragma once
// Internal to mesh/: correspondence between gpufem element types and Gmsh (MSH) element types.
#include <optional>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The MSH element type number of a first-order shape (line 1, triangle 2, quadrilateral 3,
/// tetrahedron 4, hexahedron 5).
int gmsh_element_type(ElementType type);

/// The gpufem shape of an MSH element type, if it is one of the first-order types gpufem reads.
std::optional<ElementType> element_type_from_gmsh(int gmsh_type);

/// A plural description of an MSH element type for messages: "triangles", "hexahedra",
/// "prisms", or "'Triangle 6' elements (Gmsh type 9)" for the others.
/// Needs an initialised Gmsh for types other than the common first-order ones.
std::string gmsh_type_plural(int gmsh_type);

/// The plural descriptions of several types joined as "a, b and c".
std::string gmsh_types_plural(const std::vector<int>& gmsh_types);

}  // namespace gpufem
