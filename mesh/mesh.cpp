#include "mesh/mesh.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

namespace gpufem {

const char* element_type_name(ElementType type)
{
    switch (type) {
    case ElementType::line: return "line";
    case ElementType::triangle: return "triangle";
    case ElementType::quadrilateral: return "quadrilateral";
    case ElementType::tetrahedron: return "tetrahedron";
    case ElementType::hexahedron: return "hexahedron";
    case ElementType::prism: return "prism";
    case ElementType::pyramid: return "pyramid";
    }
    throw std::invalid_argument("element_type_name: unknown element type");
}

const char* element_type_plural(ElementType type)
{
    switch (type) {
    case ElementType::line: return "lines";
    case ElementType::triangle: return "triangles";
    case ElementType::quadrilateral: return "quadrilaterals";
    case ElementType::tetrahedron: return "tetrahedra";
    case ElementType::hexahedron: return "hexahedra";
    case ElementType::prism: return "prisms";
    case ElementType::pyramid: return "pyramids";
    }
    throw std::invalid_argument("element_type_plural: unknown element type");
}

int element_dimension(ElementType type)
{
    switch (type) {
    case ElementType::line: return 1;
    case ElementType::triangle:
    case ElementType::quadrilateral: return 2;
    case ElementType::tetrahedron:
    case ElementType::hexahedron:
    case ElementType::prism:
    case ElementType::pyramid: return 3;
    }
    throw std::invalid_argument("element_dimension: unknown element type");
}

int element_node_count(ElementType type)
{
    switch (type) {
    case ElementType::line: return 2;
    case ElementType::triangle: return 3;
    case ElementType::quadrilateral: return 4;
    case ElementType::tetrahedron: return 4;
    case ElementType::hexahedron: return 8;
    case ElementType::prism: return 6;
    case ElementType::pyramid: return 5;
    }
    throw std::invalid_argument("element_node_count: unknown element type");
}

int lagrange_node_count(ElementType type, int order)
{
    if (order < 1 || order > 4)
        throw std::invalid_argument(std::string("lagrange_node_count: order ") +
                                    std::to_string(order) + " of " + element_type_name(type) +
                                    "s is outside 1..4");
    const int k = order;
    switch (type) {
    case ElementType::line: return k + 1;
    case ElementType::triangle: return (k + 1) * (k + 2) / 2;
    case ElementType::quadrilateral: return (k + 1) * (k + 1);
    case ElementType::tetrahedron: return (k + 1) * (k + 2) * (k + 3) / 6;
    case ElementType::hexahedron: return (k + 1) * (k + 1) * (k + 1);
    case ElementType::prism: return (k + 1) * (k + 1) * (k + 2) / 2;
    case ElementType::pyramid: return (k + 1) * (k + 2) * (2 * k + 3) / 6;
    }
    throw std::invalid_argument("lagrange_node_count: unknown element type");
}

int max_lagrange_degree(ElementType type) { return type == ElementType::pyramid ? 2 : 4; }

bool Mesh::has_cells_of(ElementType type) const
{
    if (cell_types.empty()) return type == cell_type && num_cells() > 0;
    return std::find(cell_types.begin(), cell_types.end(), static_cast<std::uint8_t>(type)) != cell_types.end();
}

std::string Mesh::describe_cells() const
{
    if (cell_types.empty()) return element_type_name(cell_type);
    std::vector<long long> count(element_type_count, 0);
    for (const std::uint8_t t : cell_types) ++count[t];
    std::string text = "mixed:";
    for (int t = 0; t < element_type_count; ++t)
        if (count[static_cast<std::size_t>(t)] > 0)
            text += (text.back() == ':' ? " " : ", ") + std::to_string(count[static_cast<std::size_t>(t)]) + " " +
                    element_type_plural(static_cast<ElementType>(t));
    return text;
}

const BoundaryFacets* Mesh::find_boundary(const std::string& name) const
{
    for (const BoundaryFacets& facets : boundaries)
        if (facets.group.name == name) return &facets;
    return nullptr;
}

std::vector<std::string> Mesh::boundary_names() const
{
    std::vector<std::string> names;
    names.reserve(boundaries.size());
    for (const BoundaryFacets& facets : boundaries) names.push_back(facets.group.name);
    return names;
}

MeshOnExec::MeshOnExec(const Mesh& mesh, const ExecPtr& exec, Parts parts)
{
    const bool with_coordinates = parts == Parts::cells_and_coordinates;
    if (!exec->is_cuda()) {
        cells = mesh.cells.data();
        coordinates = with_coordinates ? mesh.coordinates.data() : nullptr;
    } else if (mesh.device) {
        cells = mesh.device->cells.data();
        coordinates = with_coordinates ? mesh.device->coordinates.data() : nullptr;
    } else {
        own_cells = Array<index_type>::from_host(exec, std::span<const index_type>(mesh.cells.data(), mesh.cells.size()));
        cells = own_cells.data();
        if (with_coordinates) {
            own_coordinates = Array<double>::from_host(
                exec, std::span<const double>(mesh.coordinates.data(), mesh.coordinates.size()));
            coordinates = own_coordinates.data();
        }
    }
}

}  // namespace gpufem
