#include "mesh/cell_shapes.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "mesh/lattice_table.hpp"

namespace gpufem {
namespace {

/// A shape from its corner count and face list.
CellShape make_shape(int corners, const std::vector<std::array<int, 4>>& faces)
{
    CellShape shape;
    shape.corners = corners;
    shape.faces = static_cast<int>(faces.size());
    for (std::size_t f = 0; f < faces.size(); ++f)
        for (int k = 0; k < 4; ++k) shape.face_corners[f][k] = faces[f][static_cast<std::size_t>(k)];
    return shape;
}

}  // namespace

CellShapes cell_shapes()
{
    CellShapes shapes;
    for (const ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                                   ElementType::hexahedron}) {
        const LatticeTable& table = lattice_table(type, 1);
        std::vector<std::array<int, 4>> faces;
        if (element_dimension(type) == 2) {
            for (const auto& edge : table.edges) faces.push_back({edge[0], edge[1], -1, -1});
        } else {
            faces = table.faces;
        }
        shapes.of_type[static_cast<int>(type)] = make_shape(element_node_count(type), faces);
    }
    // Gmsh's prism: triangles 0 1 2 (bottom) and 3 4 5 (top), 3 above 0, 4 above 1, 5 above 2.
    shapes.of_type[static_cast<int>(ElementType::prism)] =
        make_shape(6, {{0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}});
    // Gmsh's pyramid: the quadrilateral 0 1 2 3, the apex 4.
    shapes.of_type[static_cast<int>(ElementType::pyramid)] =
        make_shape(5, {{0, 1, 2, 3}, {0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {3, 0, 4, -1}});
    return shapes;
}

int max_faces_per_cell(const Mesh& mesh)
{
    const CellShapes shapes = cell_shapes();
    if (!mesh.is_mixed()) return shapes.of_type[static_cast<int>(mesh.cell_type)].faces;
    bool present[element_type_count] = {};
    for (const std::uint8_t t : mesh.cell_types) present[t] = true;
    int most = 0;
    for (int t = 0; t < element_type_count; ++t)
        if (present[t]) most = std::max(most, shapes.of_type[t].faces);
    return most;
}

}  // namespace gpufem
