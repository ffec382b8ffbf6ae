#include "mesh/gmsh_element_types.hpp"

#include <stdexcept>

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

std::optional<LagrangeElement> cell_element_from_gmsh(int gmsh_type)
{
    constexpr int prism_of_order_2 = 13, pyramid_of_order_2 = 14;
    if (gmsh_type == prism_of_order_2) return LagrangeElement{ElementType::prism, 2};
    if (gmsh_type == pyramid_of_order_2) return LagrangeElement{ElementType::pyramid, 2};
    return lagrange_element_from_gmsh(gmsh_type);
}

}  // namespace gpufem
