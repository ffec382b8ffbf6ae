#include "mesh/gmsh_extract.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include <gmsh.h>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_node_numbering.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/repeated_elements.hpp"

namespace gpufem {
namespace {

/// Cells of one type read from the Gmsh model: their node tags and physical group tags.
struct RawCells {
    std::vector<std::size_t> node_tags;  ///< nodes per cell, Gmsh node tags
    std::vector<int> group;              ///< physical tag per cell (0 if none)
};

/// The highest dimension (3 or 2) that has elements.
int top_dimension(const std::string& source)
{
    for (int dim = 3; dim >= 2; --dim) {
        std::vector<int> types;
        gmsh::model::mesh::getElementTypes(types, dim);
        if (!types.empty()) return dim;
    }
    throw MeshSourceError("mesh '" + source +
                          "' has no 2D or 3D cells (a file saved by Gmsh with physical groups "
                          "keeps only the elements of those groups: put the cells in one, or "
                          "save with Mesh.SaveAll = 1)");
}

/// The one cell type of dimension dim (MSH type number) and its shape and order.
std::pair<int, LagrangeElement> single_cell_type(int dim, const std::string& source)
{
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types, dim);
    std::sort(types.begin(), types.end());
    if (types.size() > 1)
        throw MeshSourceError("mesh '" + source + "' mixes " + gmsh_types_plural(types) +
                              "; gpufem needs one cell type and one order per mesh");
    const auto element = lagrange_element_from_gmsh(types.front());
    if (!element || element_dimension(element->type) != dim)
        throw MeshSourceError("mesh '" + source + "' has " + gmsh_type_plural(types.front()) +
                              "; gpufem reads complete Lagrange triangles, quadrilaterals, "
                              "tetrahedra or hexahedra of order 1 to 4");
    return {types.front(), *element};
}

/// Name of a physical group: its Gmsh name, or "group<tag>".
PhysicalGroup physical_group(int dim, int tag)
{
    PhysicalGroup group;
    group.dim = dim;
    group.tag = tag;
    gmsh::model::getPhysicalName(dim, tag, group.name);
    if (group.name.empty()) group.name = "group" + std::to_string(tag);
    return group;
}

/// All physical groups of one dimension, in Gmsh's order.
std::vector<PhysicalGroup> physical_groups(int dim)
{
    gmsh::vectorpair dim_tags;
    gmsh::model::getPhysicalGroups(dim_tags, dim);
    std::vector<PhysicalGroup> groups;
    for (const auto& [d, tag] : dim_tags) groups.push_back(physical_group(d, tag));
    return groups;
}

/// The cells of every entity of dimension dim, with the first physical group of their entity.
RawCells read_cells(int dim, int gmsh_type, int nodes_per_cell)
{
    RawCells raw;
    gmsh::vectorpair entities;
    gmsh::model::getEntities(entities, dim);
    const std::size_t npc = static_cast<std::size_t>(nodes_per_cell);
    for (const auto& [d, tag] : entities) {
        std::vector<int> types;
        std::vector<std::vector<std::size_t>> element_tags, node_tags;
        gmsh::model::mesh::getElements(types, element_tags, node_tags, d, tag);
        std::vector<int> groups;
        gmsh::model::getPhysicalGroupsForEntity(d, tag, groups);
        const int group = groups.empty() ? 0 : groups.front();
        for (std::size_t k = 0; k < types.size(); ++k) {
            if (types[k] != gmsh_type) continue;  // single_cell_type has ruled others out
            raw.node_tags.insert(raw.node_tags.end(), node_tags[k].begin(), node_tags[k].end());
            raw.group.insert(raw.group.end(), node_tags[k].size() / npc, group);
        }
    }
    return raw;
}

/// Whether a boundary group may hold facets of this MSH type in a mesh of dimension dim and
/// this order: lines (2D) or triangles and quadrilaterals (3D) of the cells' order.
bool is_facet_type(int dim, int order, int gmsh_type)
{
    const auto element = lagrange_element_from_gmsh(gmsh_type);
    return element && element->degree == order && element_dimension(element->type) == dim - 1;
}

/// "first-order lines", "triangles or quadrilaterals of order 3", ...: the facets a mesh of
/// dimension dim and this order may have.
std::string facet_description(int dim, int order)
{
    const std::string shapes = dim == 2 ? "lines" : "triangles or quadrilaterals";
    return order == 1 ? "first-order " + shapes : shapes + " of order " + std::to_string(order);
}

/// The facets of one boundary physical group, numbered like the mesh's nodes.
BoundaryFacets boundary_facets(const PhysicalGroup& group, const Mesh& mesh,
                               const GmshNodeNumbering& numbering)
{
    const std::string where = "boundary group '" + group.name + "' of mesh '" + mesh.source + "'";
    BoundaryFacets facets;
    facets.group = group;
    int facet_type = 0;
    std::vector<int> entities;
    gmsh::model::getEntitiesForPhysicalGroup(group.dim, group.tag, entities);
    for (int entity : entities) {
        std::vector<int> types;
        std::vector<std::vector<std::size_t>> element_tags, node_tags;
        gmsh::model::mesh::getElements(types, element_tags, node_tags, group.dim, entity);
        for (std::size_t k = 0; k < types.size(); ++k) {
            if (node_tags[k].empty()) continue;
            if (!is_facet_type(mesh.dim, mesh.degree, types[k]))
                throw MeshSourceError(where + " has " + gmsh_type_plural(types[k]) +
                                      "; its facets must be " +
                                      facet_description(mesh.dim, mesh.degree));
            if (facet_type != 0 && facet_type != types[k])
                throw MeshSourceError(where + " mixes " +
                                      gmsh_types_plural({facet_type, types[k]}) +
                                      "; gpufem needs one facet type per boundary group");
            facet_type = types[k];
            for (std::size_t node : node_tags[k]) {
                const index_type index = numbering.index(node);
                if (index < 0)
                    throw MeshSourceError(where + " has a facet on node " + std::to_string(node) +
                                          ", which no cell uses");
                facets.connectivity.push_back(index);
            }
        }
    }
    if (facet_type != 0) {
        facets.type = lagrange_element_from_gmsh(facet_type)->type;
    } else {  // an empty group: the facet shape of the cell type
        facets.type = mesh.dim == 2                                  ? ElementType::line
                      : mesh.cell_type == ElementType::tetrahedron ? ElementType::triangle
                                                                     : ElementType::quadrilateral;
    }
    facets.degree = mesh.degree;
    facets.nodes_per_facet = lagrange_node_count(facets.type, facets.degree);
    drop_repeated_elements(facets.connectivity, facets.nodes_per_facet, nullptr);
    return facets;
}

}  // namespace

int mesh_cell_order(const std::string& source)
{
    return single_cell_type(top_dimension(source), source).second.degree;
}

Mesh extract_mesh(const std::string& source, int order)
{
    Mesh mesh;
    mesh.source = source;
    mesh.dim = top_dimension(source);
    const auto [gmsh_type, element] = single_cell_type(mesh.dim, source);
    if (element.degree != order)
        throw MeshSourceError("mesh '" + source + "' has " + gmsh_type_plural(gmsh_type) +
                              " where order " + std::to_string(order) + " was expected");
    mesh.cell_type = element.type;
    mesh.degree = element.degree;
    mesh.nodes_per_cell = lagrange_node_count(mesh.cell_type, mesh.degree);

    RawCells raw = read_cells(mesh.dim, gmsh_type, mesh.nodes_per_cell);
    checked_index(static_cast<std::int64_t>(raw.group.size()),
                  "number of cells of mesh '" + source + "'");
    GmshNodeNumbering numbering(raw.node_tags, source);
    mesh.cells.resize(raw.node_tags.size());
    for (std::size_t i = 0; i < raw.node_tags.size(); ++i)
        mesh.cells[i] = numbering.index(raw.node_tags[i]);
    raw.node_tags = {};
    mesh.cell_group = std::move(raw.group);
    mesh.coordinates = numbering.take_coordinates();
    drop_repeated_elements(mesh.cells, mesh.nodes_per_cell, &mesh.cell_group);

    mesh.subdomains = physical_groups(mesh.dim);
    for (const PhysicalGroup& group : physical_groups(mesh.dim - 1)) {
        try {
            mesh.boundaries.push_back(boundary_facets(group, mesh, numbering));
        } catch (const MeshSourceError& e) {
            // A group the case may never use must not make the mesh unusable.
            mesh.ignored_boundaries.push_back({group.name, e.what()});
        }
    }
    return mesh;
}

}  // namespace gpufem
