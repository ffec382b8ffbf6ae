#include "mesh/gmsh_extract.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <future>
#include <numeric>
#include <span>
#include <string>
#include <utility>

#include <gmsh.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include "mesh/curved_cells.hpp"
#include "mesh/gmsh_cad_boundary.hpp"
#include "mesh/gmsh_cell_order.hpp"
#include "mesh/gmsh_cell_data.hpp"
#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_type_names.hpp"
#include "mesh/gmsh_node_numbering.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/repeated_elements.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

/// One entity's cells of one type, as Gmsh gave them.
struct CellBlock {
    std::vector<std::size_t> node_tags;     ///< per_cell Gmsh node tags per cell
    std::vector<std::size_t> element_tags;  ///< Gmsh element tag per cell, when asked for
    std::size_t per_cell = 1;               ///< node tags per cell
    std::size_t first = 0;                  ///< its first cell's number among all read
    int group = 0;                          ///< its entity's first physical tag (0 if none)
    std::uint8_t type_index = 0;            ///< its type's index in the mesh's list of types

    std::size_t cells() const { return node_tags.size() / per_cell; }
};

/// The cells of the mesh's dimension read from the Gmsh model, entity by entity and type by
/// type: kept as Gmsh handed them (no copy into one array; the numbering reads the blocks).
struct RawCells {
    std::vector<CellBlock> blocks;  ///< none empty
    std::size_t cells = 0;          ///< over all blocks
    bool element_tags = false;      ///< whether the blocks hold their cells' element tags
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

/// The cell types of dimension dim (MSH type numbers, increasing) with their shapes and
/// orders: one type (complete Lagrange, order 1 to 4; prisms and pyramids order 1), or
/// several first-order ones (a mixed mesh: triangles and quadrilaterals, or tetrahedra,
/// pyramids, prisms and hexahedra).
std::vector<std::pair<int, LagrangeElement>> cell_types_of(int dim, const std::string& source)
{
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types, dim);
    std::sort(types.begin(), types.end());
    std::vector<std::pair<int, LagrangeElement>> out;
    for (const int type : types) {
        const auto element = cell_element_from_gmsh(type);
        if (!element || element_dimension(element->type) != dim)
            throw MeshSourceError("mesh '" + source + "' has " + gmsh_type_plural(type) +
                                  "; gpufem reads complete Lagrange triangles, quadrilaterals, "
                                  "tetrahedra or hexahedra of order 1 to 4, and complete prisms "
                                  "and pyramids of order 1 or 2");
        if (types.size() > 1 && (element->degree > max_curved_block_order ||
                                 (!out.empty() && element->degree != out.front().second.degree)))
            throw MeshSourceError("mesh '" + source + "' mixes " + gmsh_types_plural(types) +
                                  "; gpufem reads meshes of several cell types of order 1 or 2, all of one "
                                  "order (the degree and mesh.refine apply to them as read)");
        out.emplace_back(type, *element);
    }
    return out;
}

/// Whether cells of these types are read at order 2 as their corners and curved maps
/// (Mesh::curved_cells): several types, prisms or pyramids, of order 2.
bool read_as_curved_blocks(const std::vector<std::pair<int, LagrangeElement>>& types)
{
    const LagrangeElement& first = types.front().second;
    return first.degree >= 2 && (types.size() > 1 || first.type == ElementType::prism ||
                                 first.type == ElementType::pyramid);
}

/// gpufem's node order of each of the types (GmshNodeOrders), from Gmsh's reference nodes.
GmshNodeOrders gmsh_node_orders(const std::vector<std::pair<int, LagrangeElement>>& types)
{
    GmshNodeOrders orders;
    for (const auto& [gmsh_type, element] : types) {
        std::string name;
        int dim = 0, order = 0, nodes = 0, primary = 0;
        std::vector<double> reference;
        gmsh::model::mesh::getElementProperties(gmsh_type, name, dim, order, nodes, reference, primary);
        if (reference.size() == static_cast<std::size_t>(3 * nodes) && dim < 3) {  // x, y, z per node: keep dim
            std::vector<double> own;
            for (int n = 0; n < nodes; ++n)
                own.insert(own.end(), reference.begin() + 3 * n, reference.begin() + 3 * n + dim);
            reference = std::move(own);
        }
        orders[static_cast<std::size_t>(element.type)] = gpufem_node_order(element.type, element.degree, reference);
    }
    return orders;
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

/// The node tags of the cells of MSH type `type` on entity `tag`, fetched by Gmsh on all
/// threads (its preallocated, task-parallel getElementsByType); element_tags, when not null,
/// gets their element tags.
std::vector<std::size_t> entity_cell_nodes(int type, int tag, std::vector<std::size_t>* element_tags)
{
    std::vector<std::size_t> no_element_tags, node_tags;  // not asked for: preallocated empty
    std::vector<std::size_t>& elements = element_tags ? *element_tags : no_element_tags;
    gmsh::model::mesh::preallocateElementsByType(type, element_tags != nullptr, true, elements, node_tags, tag);
    const long long tasks = std::max<long long>(1, std::min<long long>(omp_get_max_threads(),
                                                    static_cast<long long>(node_tags.size() / 4096)));
    std::string failure;  // an exception must not leave the parallel region
#pragma omp parallel for schedule(static, 1)
    for (long long task = 0; task < tasks; ++task) {
        try {
            gmsh::model::mesh::getElementsByType(type, elements, node_tags, tag,
                                                 static_cast<std::size_t>(task), static_cast<std::size_t>(tasks));
        } catch (const std::exception& error) {
#pragma omp critical(gpufem_entity_cell_nodes)
            if (failure.empty()) failure = error.what();
        }
    }
    if (!failure.empty()) throw MeshSourceError("Gmsh could not give the cells of entity " + std::to_string(tag) + ": " + failure);
    return node_tags;
}

/// The cells of every entity of dimension dim, each block with the first physical group of
/// its entity and its type (index in gmsh_types); with element_tags, each cell's element tag.
RawCells read_cells(int dim, const std::vector<std::pair<int, LagrangeElement>>& gmsh_types, bool element_tags)
{
    RawCells raw;
    raw.element_tags = element_tags;
    gmsh::vectorpair entities;
    gmsh::model::getEntities(entities, dim);
    for (const auto& [d, tag] : entities) {
        std::vector<int> types, groups;
        gmsh::model::mesh::getElementTypes(types, d, tag);
        gmsh::model::getPhysicalGroupsForEntity(d, tag, groups);
        for (const int type : types) {
            std::size_t index = 0;
            while (index < gmsh_types.size() && gmsh_types[index].first != type) ++index;
            if (index == gmsh_types.size()) continue;  // cell_types_of has listed every type
            CellBlock block;
            block.per_cell = static_cast<std::size_t>(
                lagrange_node_count(gmsh_types[index].second.type, gmsh_types[index].second.degree));
            block.node_tags = entity_cell_nodes(type, tag, element_tags ? &block.element_tags : nullptr);
            block.first = raw.cells;
            block.group = groups.empty() ? 0 : groups.front();
            block.type_index = static_cast<std::uint8_t>(index);
            if (block.node_tags.empty()) continue;
            raw.cells += block.cells();
            raw.blocks.push_back(std::move(block));
        }
    }
    return raw;
}

/// Whether a boundary group may hold facets of this MSH type in a mesh of dimension dim and
/// this order: lines (2D) or triangles and quadrilaterals (3D) of the cells' order (a group
/// of a mixed 3D mesh may hold both).
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

/// The entities of a physical group, each once, in Gmsh's order.
std::vector<int> group_entities(const PhysicalGroup& group)
{
    std::vector<int> entities, once;
    gmsh::model::getEntitiesForPhysicalGroup(group.dim, group.tag, entities);
    for (const int entity : entities)
        if (std::find(once.begin(), once.end(), entity) == once.end()) once.push_back(entity);
    return once;
}

/// The facets of one boundary physical group, numbered like the mesh's nodes; with
/// corners_only, each facet's corners (first-order facets of a mesh read as curved blocks);
/// facets listed twice dropped where a mesh file may list them so.
BoundaryFacets boundary_facets(const PhysicalGroup& group, const Mesh& mesh, const GmshNodeNumbering& numbering,
                               bool corners_only, bool repeats_possible)
{
    const std::string where = "boundary group '" + group.name + "' of mesh '" + mesh.source + "'";
    BoundaryFacets facets;
    facets.group = group;
    int facet_type = 0;
    std::vector<std::size_t> triangle_ends;  // mixed groups: where each triangle's nodes end
    for (const int entity : group_entities(group)) {
        std::vector<int> types;
        gmsh::model::mesh::getElementTypes(types, group.dim, entity);
        std::sort(types.begin(), types.end());
        for (std::size_t k = 0; k < types.size(); ++k) {
            const std::vector<std::size_t> node_tags = entity_cell_nodes(types[k], entity, nullptr);
            if (node_tags.empty()) continue;
            if (!is_facet_type(mesh.dim, mesh.degree, types[k]))
                throw MeshSourceError(where + " has " + gmsh_type_plural(types[k]) +
                                      "; its facets must be " +
                                      facet_description(mesh.dim, mesh.degree));
            if (facet_type != 0 && facet_type != types[k]) {
                if (!mesh.first_order_only())
                    throw MeshSourceError(where + " mixes " + gmsh_types_plural({facet_type, types[k]}) +
                                          "; gpufem needs one facet type per boundary group");
                facets.mixed_triangles = true;
            }
            facet_type = facet_type == 0 ? types[k] : facet_type;
            const auto element = lagrange_element_from_gmsh(types[k]);
            const std::size_t nodes = static_cast<std::size_t>(lagrange_node_count(element->type, element->degree));
            const std::size_t kept = corners_only ? static_cast<std::size_t>(element_node_count(element->type)) : nodes;
            for (std::size_t first = 0; first < node_tags.size(); first += nodes) {
                for (std::size_t i = first; i < first + kept; ++i) {
                    const std::size_t node = node_tags[i];
                    const index_type index = numbering.index(node);
                    if (index < 0)
                        throw MeshSourceError(where + " has a facet on node " + std::to_string(node) +
                                              ", which no cell uses");
                    facets.connectivity.push_back(index);
                }
                if (element->type == ElementType::triangle) triangle_ends.push_back(facets.connectivity.size());
            }
        }
    }
    facets.degree = corners_only ? 1 : mesh.degree;
    if (facets.mixed_triangles) {
        // Triangles and quadrilaterals: four nodes per facet, a triangle's 4th -1.
        std::vector<index_type> padded;
        std::size_t next = 0, triangle = 0;
        while (next < facets.connectivity.size()) {
            const bool is_triangle = triangle < triangle_ends.size() && triangle_ends[triangle] == next + 3;
            const std::size_t n = is_triangle ? 3 : 4;
            padded.insert(padded.end(), facets.connectivity.begin() + static_cast<std::ptrdiff_t>(next),
                          facets.connectivity.begin() + static_cast<std::ptrdiff_t>(next + n));
            if (is_triangle) {
                padded.push_back(-1);
                ++triangle;
            }
            next += n;
        }
        facets.connectivity = std::move(padded);
        facets.type = ElementType::quadrilateral;
    } else if (facet_type != 0) {
        facets.type = lagrange_element_from_gmsh(facet_type)->type;
    } else {  // an empty group: the facet shape of the cell type
        facets.type = mesh.dim == 2                                  ? ElementType::line
                      : mesh.cell_type == ElementType::tetrahedron ? ElementType::triangle
                                                                     : ElementType::quadrilateral;
    }
    facets.nodes_per_facet = lagrange_node_count(facets.type, facets.degree);
    if (repeats_possible) drop_repeated_elements(facets.connectivity, facets.nodes_per_facet, nullptr);
    return facets;
}


/// Whether Gmsh meshed every entity of dimension dim itself (none is discrete, as a mesh
/// file's entities are): its meshing lists each cell once, so there are no repeated cells to
/// look for (a file in MSH 2 lists a cell once per physical group).
bool meshed_by_gmsh(int dim)
{
    gmsh::vectorpair entities;
    gmsh::model::getEntities(entities, dim);
    for (const auto& [d, tag] : entities) {
        std::string type;
        gmsh::model::getType(d, tag, type);
        if (type.find("Discrete") != std::string::npos) return false;
    }
    return true;
}

/// The block holding cell `cell` (its number among those read).
const CellBlock& block_of(const RawCells& raw, std::size_t cell)
{
    const auto after = std::upper_bound(raw.blocks.begin(), raw.blocks.end(), cell,
                                        [](std::size_t c, const CellBlock& block) { return c < block.first; });
    return *(after - 1);
}

/// The cells' groups (and, in a mixed mesh, types; with raw.element_tags, their element tags
/// into `element_tags`) from `raw`, repeated cells dropped where a mesh file may have them.
void set_groups_and_types(Mesh& mesh, const RawCells& raw, const std::vector<std::pair<int, LagrangeElement>>& types,
                          bool repeats_possible, std::vector<std::size_t>& element_tags)
{
    // Each cell's number among those read rides along through the removal of repeated cells.
    std::vector<int> origin;
    if (repeats_possible) {
        origin.resize(raw.cells);
        std::iota(origin.begin(), origin.end(), 0);
        drop_repeated_elements(mesh.cells, mesh.nodes_per_cell, &origin);
    }
    const std::size_t kept = repeats_possible ? origin.size() : raw.cells;
    const bool mixed = types.size() > 1;
    mesh.cell_group.resize(kept);
    if (mixed) mesh.cell_types.resize(kept);
    if (raw.element_tags) element_tags.resize(kept);
    const auto cells = static_cast<long long>(kept);
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < cells; ++k) {
        const auto c = static_cast<std::size_t>(k);
        const std::size_t from = repeats_possible ? static_cast<std::size_t>(origin[c]) : c;
        const CellBlock& block = block_of(raw, from);
        mesh.cell_group[c] = block.group;
        if (mixed) mesh.cell_types[c] = static_cast<std::uint8_t>(types[block.type_index].second.type);
        if (raw.element_tags) element_tags[c] = block.element_tags[from - block.first];
    }
}

/// Numbers the nodes of raw's cells and writes the mesh's cells (rows of nodes_per_cell, a
/// shorter cell's row padded with -1) and coordinates; the blocks' node tags are released.
GmshNodeNumbering number_cells(Mesh& mesh, RawCells& raw, GmshNodes nodes, StageLaps& laps)
{
    std::vector<std::span<const std::size_t>> cell_node_tags;
    for (const CellBlock& block : raw.blocks) cell_node_tags.emplace_back(block.node_tags);
    GmshNodeNumbering numbering(std::move(nodes), cell_node_tags, mesh.source);
    laps.lap("nodes numbered");
    const auto row = static_cast<std::size_t>(mesh.nodes_per_cell);
    mesh.cells.resize(raw.cells * row);
    for (CellBlock& block : raw.blocks) {
        const auto cells = static_cast<long long>(block.cells());
#pragma omp parallel for schedule(static)
        for (long long k = 0; k < cells; ++k) {
            const auto c = static_cast<std::size_t>(k);
            const std::size_t* from = &block.node_tags[c * block.per_cell];
            index_type* to = &mesh.cells[(block.first + c) * row];
            for (std::size_t n = 0; n < row; ++n) to[n] = n < block.per_cell ? numbering.index(from[n]) : -1;
        }
        block.node_tags = {};
    }
    mesh.coordinates = numbering.take_coordinates();
    laps.lap("cells numbered");
    return numbering;
}

/// The boundary groups (physical groups of dimension dim - 1) into mesh.boundaries; a group
/// that cannot be read goes to ignored_boundaries with the reason (a group the case may
/// never use must not make the mesh unusable).
void add_boundary_groups(Mesh& mesh, const GmshNodeNumbering& numbering, bool corners_only, bool repeats_possible)
{
    for (const PhysicalGroup& group : physical_groups(mesh.dim - 1)) {
        try {
            mesh.boundaries.push_back(boundary_facets(group, mesh, numbering, corners_only, repeats_possible));
        } catch (const MeshSourceError& e) {
            mesh.ignored_boundaries.push_back({group.name, e.what()});
        }
    }
}

}  // namespace

int mesh_cell_order(const std::string& source)
{
    return cell_types_of(top_dimension(source), source).front().second.degree;
}

Mesh extract_mesh(const std::string& source, int order, int cad_refinements)
{
    Mesh mesh;
    mesh.source = source;
    mesh.dim = top_dimension(source);
    const auto types = cell_types_of(mesh.dim, source);
    const auto [gmsh_type, element] = types.front();
    if (element.degree != order)
        throw MeshSourceError("mesh '" + source + "' has " + gmsh_type_plural(gmsh_type) +
                              " where order " + std::to_string(order) + " was expected");
    // A mixed mesh's cell_type: the type with the most corners (its cells' row length).
    LagrangeElement widest = element;
    for (const auto& [t, e] : types)
        if (element_node_count(e.type) > element_node_count(widest.type)) widest = e;
    mesh.cell_type = widest.type;
    mesh.degree = widest.degree;
    mesh.nodes_per_cell = lagrange_node_count(mesh.cell_type, mesh.degree);

    StageLaps laps;
    const bool views = gmsh_has_views();  // $ElementData needs each cell's element tag
    // Gmsh lists the nodes on one thread (0.1 s for 2M nodes) while the cells are read.
    std::future<GmshNodes> nodes = std::async(std::launch::async, read_gmsh_nodes);
    RawCells raw = read_cells(mesh.dim, types, views);
    GmshNodes node_list = nodes.get();
    laps.lap("Gmsh's cells and nodes read");
    checked_index(static_cast<std::int64_t>(raw.cells), "number of cells of mesh '" + source + "'");
    GmshNodeNumbering numbering = number_cells(mesh, raw, std::move(node_list), laps);
    const bool repeats_possible = !meshed_by_gmsh(mesh.dim);
    std::vector<std::size_t> element_tags;
    set_groups_and_types(mesh, raw, types, repeats_possible, element_tags);
    raw = {};
    laps.lap("groups and types");
    if (views) mesh.cell_fields = gmsh_element_data(element_tags);

    mesh.subdomains = physical_groups(mesh.dim);
    const bool curved_blocks = read_as_curved_blocks(types);
    add_boundary_groups(mesh, numbering, curved_blocks, repeats_possible);
    laps.lap("boundary groups");
    // Curved blocks' facets are numbered as their maps' nodes: before the split, the mesh's.
    if (cad_refinements > 0) {
        try {
            mesh.cad_boundary = gmsh_cad_boundary(mesh, numbering, cad_refinements);
        } catch (const std::exception& e) {  // Gmsh could not evaluate a surface: the coarse maps
            spdlog::warn("mesh '{}': the curved geometry's points could not be made ({}); refinement "
                         "places the new boundary nodes on the coarse cells' maps", source, e.what());
        }
        laps.lap("curved geometry");
    }
    if (curved_blocks) {  // numbered and refined from their corners, placed by their maps
        split_curved_cells(mesh, gmsh_node_orders(types));
        laps.lap("curved cells split");
    }
    spdlog::debug("mesh extraction ({} cells): {}", mesh.num_cells(), laps.text);
    return mesh;
}

}  // namespace gpufem
