#include "mesh/mesh.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {

const char* element_type_name(ElementType type) { return cell_shape(type).name; }

const char* element_type_plural(ElementType type) { return cell_shape(type).plural; }

int element_dimension(ElementType type) { return cell_shape(type).dim; }

int element_node_count(ElementType type) { return cell_shape(type).corners; }

int lagrange_node_count(ElementType type, int order)
{
    const ShapeTraits& shape = cell_shape(type);
    if (order < 1 || order > static_cast<int>(shape.lagrange_nodes.size()))
        throw std::invalid_argument(std::string("lagrange_node_count: order ") +
                                    std::to_string(order) + " of " + shape.name + "s is outside 1..4");
    return shape.lagrange_nodes[static_cast<std::size_t>(order - 1)];
}

int max_lagrange_degree(ElementType type) { return cell_shape(type).max_degree; }

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

std::shared_ptr<const MeshOnDevice> upload_mesh(const Mesh& mesh, const ExecPtr& exec)
{
    auto copy = std::make_shared<MeshOnDevice>();
    copy->coordinates = Array<double>::from_host(exec, std::span<const double>(mesh.node_coordinates().data(), mesh.node_coordinates().size()));
    copy->cells = Array<index_type>::from_host(exec, std::span<const index_type>(mesh.cells.data(), mesh.cells.size()));
    return copy;
}

MeshOnExec::MeshOnExec(const Mesh& mesh, const ExecPtr& exec, Parts parts)
{
    const bool with_coordinates = parts == Parts::cells_and_coordinates;
    if (!exec->is_cuda()) {
        cells = mesh.cells.data();
        coordinates = with_coordinates ? mesh.node_coordinates().data() : nullptr;
    } else if (mesh.device) {
        cells = mesh.device->cells.data();
        coordinates = with_coordinates ? mesh.device->coordinates.data() : nullptr;
    } else {
        own_cells = Array<index_type>::from_host(exec, std::span<const index_type>(mesh.cells.data(), mesh.cells.size()));
        cells = own_cells.data();
        if (with_coordinates) {
            own_coordinates = Array<double>::from_host(
                exec, std::span<const double>(mesh.node_coordinates().data(), mesh.node_coordinates().size()));
            coordinates = own_coordinates.data();
        }
    }
}

}  // namespace gpufem
