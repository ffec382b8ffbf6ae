#include "mesh/curved_cells.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "mesh/gmsh_session.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// The corner numbers: each node used as a cell's corner gets the next number, in node
/// order; the others -1. Returns their count.
index_type number_corners(const Mesh& mesh, std::vector<index_type>& corner_of)
{
    corner_of.assign(static_cast<std::size_t>(mesh.num_nodes()), -1);
    const int stride = mesh.nodes_per_cell;
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const int corners = element_node_count(mesh.type_of_cell(c));
        for (int j = 0; j < corners; ++j) corner_of[static_cast<std::size_t>(mesh.cells[static_cast<std::size_t>(c) * stride + j])] = 0;
    }
    index_type next = 0;
    for (index_type& n : corner_of)
        if (n == 0) n = next++;
    return next;
}

/// The widest row of corners among the mesh's cell types.
int corner_stride(const Mesh& mesh)
{
    int stride = 0;
    for (int t = 0; t < element_type_count; ++t)
        if (mesh.has_cells_of(static_cast<ElementType>(t))) stride = std::max(stride, element_node_count(static_cast<ElementType>(t)));
    return stride;
}

}  // namespace

std::vector<int> gpufem_node_order(ElementType type, int order, const std::vector<double>& gmsh_reference)
{
    const int dim = element_dimension(type);
    const std::vector<double> own = equispaced_reference_nodes(type, order);
    const std::size_t nodes = own.size() / static_cast<std::size_t>(dim);
    if (gmsh_reference.size() != own.size())
        throw std::logic_error(std::string("gpufem_node_order: Gmsh's ") + element_type_plural(type) + " of order " +
                               std::to_string(order) + " have another number of nodes");
    std::vector<int> out(nodes, -1);
    for (std::size_t j = 0; j < nodes; ++j)
        for (std::size_t g = 0; g < nodes; ++g) {
            double distance = 0.0;
            for (int i = 0; i < dim; ++i) distance += std::abs(own[j * dim + i] - gmsh_reference[g * dim + i]);
            if (distance < 1e-9) out[j] = static_cast<int>(g);
        }
    for (int g : out)
        if (g < 0)
            throw std::logic_error(std::string("gpufem_node_order: Gmsh's ") + element_type_plural(type) + " of order " +
                                   std::to_string(order) + " have a node gpufem's lack");
    return out;
}

void split_curved_cells(Mesh& mesh, const GmshNodeOrders& orders)
{
    auto curved = std::make_shared<CellGeometry>();
    curved->order = mesh.degree;
    curved->nodes_per_row = mesh.nodes_per_cell;
    const int stride = mesh.nodes_per_cell, corners_stride = corner_stride(mesh);
    const long long cells = mesh.num_cells();
    std::vector<index_type> corner_of;
    const index_type corners = number_corners(mesh, corner_of);
    curved->cells.assign(static_cast<std::size_t>(cells * stride), -1);
    HostVector<index_type> corner_cells(static_cast<std::size_t>(cells * corners_stride), -1);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) {
        const ElementType type = mesh.type_of_cell(static_cast<index_type>(c));
        const std::vector<int>& order = orders[static_cast<std::size_t>(type)];
        const index_type* row = mesh.cells.data() + c * stride;
        for (std::size_t j = 0; j < order.size(); ++j) curved->cells[static_cast<std::size_t>(c * stride) + j] = row[order[j]];
        for (int j = 0; j < element_node_count(type); ++j)
            corner_cells[static_cast<std::size_t>(c * corners_stride + j)] = corner_of[static_cast<std::size_t>(row[j])];
    }
    HostVector<double> coordinates(3 * static_cast<std::size_t>(corners));
    for (std::size_t n = 0; n < corner_of.size(); ++n)
        if (corner_of[n] >= 0)
            for (int axis = 0; axis < 3; ++axis)
                coordinates[3 * static_cast<std::size_t>(corner_of[n]) + axis] = mesh.node_coordinates()[3 * n + axis];
    // A group the case may never use must not make the mesh unusable: one whose facets are
    // not on the cells' corners is set aside with the reason.
    std::vector<BoundaryFacets> kept;
    for (BoundaryFacets& facets : mesh.boundaries) {
        bool on_corners = true;
        for (index_type& n : facets.connectivity)
            if (n >= 0) on_corners = on_corners && (n = corner_of[static_cast<std::size_t>(n)]) >= 0;
        if (on_corners) kept.push_back(std::move(facets));
        else
            mesh.ignored_boundaries.push_back({facets.group.name, "boundary group '" + facets.group.name + "' of mesh '" +
                                                                      mesh.source + "' has a facet corner that is no cell's corner"});
    }
    mesh.boundaries = std::move(kept);
    curved->coordinates.assign(mesh.node_coordinates().begin(), mesh.node_coordinates().end());
    mesh.coordinates = std::move(coordinates);
    mesh.cells = std::move(corner_cells);
    mesh.degree = 1;
    mesh.nodes_per_cell = corners_stride;
    mesh.curved_cells = std::move(curved);
}

bool curved_cells_fit(const Mesh& mesh)
{
    if (!mesh.curved_cells) return true;
    const CellGeometry& curved = *mesh.curved_cells;
    const long long cells = mesh.num_cells();
    const long long geometry_nodes = static_cast<long long>(curved.coordinates.size() / 3);
    if (curved.order != 2 || mesh.degree != 1 || curved.coordinates.size() % 3 != 0 ||
        curved.cells.size() != static_cast<std::size_t>(cells * curved.nodes_per_row))
        return false;
    for (long long c = 0; c < cells; ++c) {
        const ElementType type = mesh.type_of_cell(static_cast<index_type>(c));
        const int width = lagrange_node_count(type, curved.order);
        if (width > curved.nodes_per_row || (!mesh.is_mixed() && width != curved.nodes_per_row)) return false;
        const index_type* row = curved.cells.data() + c * curved.nodes_per_row;
        for (int j = 0; j < width; ++j)
            if (row[j] < 0 || row[j] >= geometry_nodes) return false;
        for (int j = 0; j < element_node_count(type); ++j) {
            const index_type node = mesh.cells[static_cast<std::size_t>(c * mesh.nodes_per_cell + j)];
            for (int axis = 0; axis < 3; ++axis)
                if (curved.coordinates[3 * static_cast<std::size_t>(row[j]) + axis] !=
                    mesh.node_coordinates()[3 * static_cast<std::size_t>(node) + axis])
                    return false;
        }
    }
    return true;
}

}  // namespace gpufem
