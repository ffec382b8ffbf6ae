#include "mesh/kernel_shapes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {

KernelShapes kernel_shapes()
{
    KernelShapes shapes;
    for (int t = 0; t < element_type_count; ++t) {
        const ShapeTraits& traits = cell_shape(static_cast<ElementType>(t));
        if (traits.dim < 2) continue;
        KernelShape& shape = shapes.of_type[t];
        shape.corners = traits.corners;
        if (static_cast<std::size_t>(traits.side_count()) > std::size(shape.face_corners))
            throw std::logic_error(std::string("kernel_shapes: ") + traits.plural + " have too many sides");
        int f = 0;
        if (traits.dim == 2) {
            for (const auto& edge : traits.edges) {
                const int corners[4] = {edge[0], edge[1], -1, -1};
                std::copy(corners, corners + 4, shape.face_corners[f++]);
            }
        } else {
            for (const auto& face : traits.faces) std::copy(face.begin(), face.end(), shape.face_corners[f++]);
        }
        shape.faces = f;
    }
    return shapes;
}

int max_faces_per_cell(const Mesh& mesh)
{
    const KernelShapes shapes = kernel_shapes();
    if (!mesh.is_mixed()) return shapes.of_type[static_cast<int>(mesh.cell_type)].faces;
    bool present[element_type_count] = {};
    for (const std::uint8_t t : mesh.cell_types) present[t] = true;
    int most = 0;
    for (int t = 0; t < element_type_count; ++t)
        if (present[t]) most = std::max(most, shapes.of_type[t].faces);
    return most;
}

}  // namespace gpufem
