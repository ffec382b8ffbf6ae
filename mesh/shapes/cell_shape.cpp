#include "mesh/shapes/cell_shape.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

/// Every shape's table, in ElementType order: a new shape adds its line here.
const std::array<const ShapeTraits*, element_type_count> shape_tables = {
    &line_shape, &triangle_shape, &quadrilateral_shape, &tetrahedron_shape,
    &hexahedron_shape, &prism_shape, &pyramid_shape};

}  // namespace

const ShapeTraits& cell_shape(ElementType type)
{
    const auto index = static_cast<std::size_t>(type);
    if (index >= shape_tables.size() || shape_tables[index]->type != type)
        throw std::invalid_argument("cell_shape: unknown element type " + std::to_string(index));
    return *shape_tables[index];
}

}  // namespace gpufem
