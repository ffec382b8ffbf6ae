#include "mesh/gmsh_element_types.hpp"

#include <array>
#include <stdexcept>

#include <gmsh.h>

namespace gpufem {
namespace {

constexpr int max_order = 4;
constexpr std::array<ElementType, 7> all_types = {
    ElementType::line,       ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
    ElementType::hexahedron, ElementType::prism,    ElementType::pyramid};

/// MSH type numbers of the complete Lagrange elements of orders 1..4, per shape (as
/// gmsh::model::mesh::getElementType(family, order) returns them).
const std::array<int, max_order>& gmsh_types_of(ElementType type)
{
    static const std::array<int, max_order> line = {1, 8, 26, 27}, triangle = {2, 9, 21, 23},
                                            quadrilateral = {3, 10, 36, 37},
                                            tetrahedron = {4, 11, 29, 30},
                                            hexahedron = {5, 12, 92, 93},
                                            // first order only (-1: an order gpufem does not read)
                                            prism = {6, -1, -1, -1}, pyramid = {7, -1, -1, -1};
    switch (type) {
    case ElementType::line: return line;
    case ElementType::triangle: return triangle;
    case ElementType::quadrilateral: return quadrilateral;
    case ElementType::tetrahedron: return tetrahedron;
    case ElementType::hexahedron: return hexahedron;
    case ElementType::prism: return prism;
    case ElementType::pyramid: return pyramid;
    }
    throw std::invalid_argument("gmsh_element_type: unknown element type");
}

}  // namespace

int gmsh_element_type(ElementType type, int order)
{
    if (order < 1 || order > max_order)
        throw std::invalid_argument("gmsh_element_type: order " + std::to_string(order) + " of " +
                                    element_type_plural(type) + " is outside 1.." + std::to_string(max_order));
    const int gmsh_type = gmsh_types_of(type)[static_cast<std::size_t>(order - 1)];
    if (gmsh_type < 0)
        throw std::invalid_argument(std::string("gmsh_element_type: gpufem reads ") + element_type_plural(type) +
                                    " of order 1 only");
    return gmsh_type;
}

std::optional<LagrangeElement> lagrange_element_from_gmsh(int gmsh_type)
{
    for (ElementType type : all_types) {
        const auto& types = gmsh_types_of(type);
        for (int k = 0; k < max_order; ++k)
            if (types[static_cast<std::size_t>(k)] == gmsh_type) return LagrangeElement{type, k + 1};
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
