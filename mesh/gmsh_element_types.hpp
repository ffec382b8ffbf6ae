#pragma once
// Internal to mesh/: correspondence between gpufem element types and Gmsh (MSH) element types.
#include <optional>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// A complete Lagrange element gpufem reads: its shape and its order (1..4).
struct LagrangeElement {
    ElementType type;
    int degree;
};

/// The MSH element type number of the complete Lagrange element of a shape and order 1..4:
/// lines 1, 8, 26, 27; triangles 2, 9, 21, 23; quadrilaterals 3, 10, 36, 37; tetrahedra 4,
/// 11, 29, 30; hexahedra 5, 12, 92, 93. Throws std::invalid_argument naming shape and order
/// for an order outside 1..4.
int gmsh_element_type(ElementType type, int order = 1);

/// The shape and order of an MSH element type, if it is one of the complete Lagrange types
/// above (incomplete/serendipity types, prisms, pyramids, ... give nullopt).
std::optional<LagrangeElement> lagrange_element_from_gmsh(int gmsh_type);

/// The shape and order of an MSH type gpufem reads as cells: lagrange_element_from_gmsh's, and
/// the complete prism (18 nodes, type 13) and pyramid (14 nodes, type 14) of order 2, whose
/// maps gpufem keeps beside their corners (Mesh::curved_cells).
std::optional<LagrangeElement> cell_element_from_gmsh(int gmsh_type);

}  // namespace gpufem
