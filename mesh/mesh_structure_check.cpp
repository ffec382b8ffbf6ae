#include "mesh/mesh_structure_check.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "mesh/curved_cells.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

/// Throws MeshSourceError with `problem` unless `holds`.
void require(bool holds, const std::string& problem)
{
    if (!holds) throw MeshSourceError(problem);
}

/// Whether `type` is one of the ElementType values.
bool known_type(ElementType type)
{
    const int value = static_cast<int>(type);
    return value >= 0 && value < element_type_count;
}

/// The mesh's dimension, cell type, degree and array sizes.
void check_sizes(const Mesh& mesh)
{
    require(mesh.dim == 2 || mesh.dim == 3, "dimension " + std::to_string(mesh.dim) + " (expected 2 or 3)");
    require(known_type(mesh.cell_type) && element_dimension(mesh.cell_type) == mesh.dim,
            "cell type " + std::to_string(static_cast<int>(mesh.cell_type)) + " does not fit dimension " +
                std::to_string(mesh.dim));
    const int highest = known_type(mesh.cell_type) ? max_lagrange_degree(mesh.cell_type) : 4;
    require(mesh.degree >= 1 && mesh.degree <= highest,
            "cell order " + std::to_string(mesh.degree) + " (expected 1 to " + std::to_string(highest) + ")");
    require(mesh.nodes_per_cell > 0 && mesh.cells.size() % static_cast<std::size_t>(mesh.nodes_per_cell) == 0,
            std::to_string(mesh.cells.size()) + " cell entries for " + std::to_string(mesh.nodes_per_cell) +
                " nodes per cell");
    require(mesh.node_coordinates().size() % 3 == 0, std::to_string(mesh.node_coordinates().size()) + " coordinates (not 3 per node)");
    const std::size_t cells = mesh.cells.size() / static_cast<std::size_t>(mesh.nodes_per_cell);
    require(mesh.cell_group.empty() || mesh.cell_group.size() == cells,
            std::to_string(mesh.cell_group.size()) + " cell groups for " + std::to_string(cells) + " cells");
    require(mesh.cell_types.empty() || mesh.cell_types.size() == cells,
            std::to_string(mesh.cell_types.size()) + " cell types for " + std::to_string(cells) + " cells");
    if (!mesh.is_mixed())
        require(mesh.nodes_per_cell == lagrange_node_count(mesh.cell_type, mesh.degree),
                std::to_string(mesh.nodes_per_cell) + " nodes per cell for a " + element_type_name(mesh.cell_type) +
                    " of order " + std::to_string(mesh.degree));
}

/// Whether node entry `n` lies within the nodes, or is padding (-1) where `padding` allows it.
bool node_entry_sound(index_type n, index_type nodes, bool padding)
{
    return (n >= 0 && n < nodes) || (padding && n == -1);
}

/// Whether cell c is of a known type of the mesh's dimension whose nodes are within range,
/// followed by -1 up to the row's end (a mixed mesh's shorter cells).
bool cell_row_sound(const Mesh& mesh, index_type c, index_type nodes)
{
    const ElementType type = mesh.type_of_cell(c);
    if (!known_type(type) || element_dimension(type) != mesh.dim) return false;
    const auto per_cell = static_cast<std::size_t>(mesh.nodes_per_cell);
    const auto own = static_cast<std::size_t>(lagrange_node_count(type, mesh.degree));
    if (own > per_cell) return false;
    const index_type* row = mesh.cells.data() + static_cast<std::size_t>(c) * per_cell;
    for (std::size_t i = 0; i < per_cell; ++i)
        if (i < own ? !node_entry_sound(row[i], nodes, false) : row[i] != -1) return false;
    return true;
}

/// Every cell's row sound (cell_row_sound), scanned by the host's threads.
void check_cells(const Mesh& mesh)
{
    const index_type nodes = mesh.num_nodes();
    const long long cells = mesh.num_cells();
    long long first_bad = cells;
#pragma omp parallel for reduction(min : first_bad) schedule(static)
    for (long long c = 0; c < cells; ++c)
        if (!cell_row_sound(mesh, static_cast<index_type>(c), nodes)) first_bad = std::min(first_bad, c);
    require(first_bad == cells, "cell " + std::to_string(first_bad) + " has an unknown type or a node index out of range (" +
                                    std::to_string(nodes) + " nodes)");
}

/// Every boundary group's facets: a known type, whole rows, nodes within range.
void check_boundaries(const Mesh& mesh)
{
    const index_type nodes = mesh.num_nodes();
    for (const BoundaryFacets& facets : mesh.boundaries) {
        const std::string what = "boundary group '" + facets.group.name + "'";
        require(known_type(facets.type) && facets.nodes_per_facet > 0 &&
                    facets.connectivity.size() % static_cast<std::size_t>(facets.nodes_per_facet) == 0,
                what + " has " + std::to_string(facets.connectivity.size()) + " entries for " +
                    std::to_string(facets.nodes_per_facet) + " nodes per facet");
        for (const index_type n : facets.connectivity)
            if (!node_entry_sound(n, nodes, facets.mixed_triangles))
                require(false, what + " refers to node " + std::to_string(n) + " of " + std::to_string(nodes));
    }
}

/// Every coordinate finite, scanned by the host's threads.
void check_finite_coordinates(const Mesh& mesh)
{
    const auto entries = static_cast<long long>(mesh.node_coordinates().size());
    long long first_bad = entries;
#pragma omp parallel for reduction(min : first_bad) schedule(static)
    for (long long i = 0; i < entries; ++i)
        if (!std::isfinite(mesh.node_coordinates()[static_cast<std::size_t>(i)])) first_bad = std::min(first_bad, i);
    require(first_bad == entries, "node " + std::to_string(first_bad / 3) + " has a coordinate that is not finite");
}

}  // namespace

void check_mesh_structure(const Mesh& mesh)
{
    check_sizes(mesh);
    check_cells(mesh);
    check_boundaries(mesh);
    check_finite_coordinates(mesh);
    if (!curved_cells_fit(mesh))
        throw MeshSourceError("its curved cells do not fit its cells (rows, node numbers or corners)");
}

}  // namespace gpufem
