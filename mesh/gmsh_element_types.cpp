#include "mesh/gmsh_element_types.hpp"

#include <stdexcept>

#include <gmsh.h>

namespace gpufem {

int gmsh_element_type(ElementType type)
{
    switch (type) {
    case ElementType::line: return 1;
    case ElementType::triangle: return 2;
    case ElementType::quadrilateral: return 3;
    case ElementType::tetrahedron: return 4;
    case ElementType::hexahedron: return 5;
    }
    throw std::invalid_argument("gmsh_element_type: unknown element type");
}

std::optional<ElementType> element_type_from_gmsh(int gmsh_type)
{
    switch (gmsh_type) {
    case 1: return ElementType::line;
    case 2: return ElementType::triangle;
    case 3: return ElementType::quadrilateral;
    case 4: return ElementType::tetrahedron;
    case 5: return ElementType::hexahedron;
    default: return std::nullopt;
    }
}

std::string gmsh_type_plural(int gmsh_type)
{
    switch (gmsh_type) {
    case 1: return "lines";
    case 2: return "triangles";
    case 3: return "quadrilaterals";
    case 4: return "tetrahedra";
    case 5: return "hexahedra";
    case 6: return "prisms";
    case 7: return "pyramids";
    case 15: return "points";
    default: break;
    }
    std::string name = "unknown";
    try {
        int dim = 0, order = 0, nodes = 0, primary = 0;
        std::vector<double> local;
        gmsh::model::mesh::getElementProperties(gmsh_type, name, dim, order, nodes, local, primary);
    } catch (...) {
        // Keep "unknown": this only decorates an error message.
    }
    return "'" + name + "' elements (Gmsh type " + std::to_string(gmsh_type) + ")";
}

std::string gmsh_types_plural(const std::vector<int>& gmsh_types)
{
    std::string text;
    for (std::size_t i = 0; i < gmsh_types.size(); ++i) {
        if (i > 0) text += i + 1 == gmsh_types.size() ? " and " : ", ";
        text += gmsh_type_plural(gmsh_types[i]);
    }
    return text;
}

}  // namespace gpufem
