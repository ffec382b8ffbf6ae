#include "mesh/gmsh_type_names.hpp"

#include <gmsh.h>

#include "mesh/gmsh_element_types.hpp"

namespace gpufem {

std::string gmsh_type_plural(int gmsh_type)
{
    if (const auto element = lagrange_element_from_gmsh(gmsh_type))
        return element_type_plural(element->type) +
               (element->degree > 1 ? " of order " + std::to_string(element->degree) : "");
    switch (gmsh_type) {
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
