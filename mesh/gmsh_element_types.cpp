#include "mesh/gmsh_element_types.hpp"

#include <stdexcept>

#include <gmsh.h>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

constexpr int max_order = 4;

}  // namespace

int gmsh_element_type(ElementType type, int order)
{
    if (order < 1 || order > max_order)
        throw std::invalid_argument("gmsh_element_type: order " + std::to_string(order) + " of " +
                                    element_type_plural(type) + " is outside 1.." + std::to_string(max_order));
    const int gmsh_type = cell_shape(type).gmsh_types[static_cast<std::size_t>(order - 1)];
    if (gmsh_type < 0)
        throw std::invalid_argument(std::string("gmsh_element_type: gpufem reads ") + element_type_plural(type) +
                                    " of order 1 only");
    return gmsh_type;
}

std::optional<LagrangeElement> lagrange_element_from_gmsh(int gmsh_type)
{
    for (int t = 0; t < element_type_count; ++t) {
        const ShapeTraits& shape = cell_shape(static_cast<ElementType>(t));
        for (int k = 0; k < max_order; ++k)
            if (shape.gmsh_types[static_cast<std::size_t>(k)] == gmsh_type) return LagrangeElement{shape.type, k + 1};
    }
    return std::nullopt;
}

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
