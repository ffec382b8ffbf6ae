#include "mesh/mesh_refinement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "linalg/array.hpp"
#include "mesh/gll_points.hpp"
#include "mesh/cell_fields.hpp"
#include "mesh/cad_boundary.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_kernels.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/mesh_entities.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

const ExecPtr& host_executor()
{
    static const ExecPtr host = Executor::create_cpu();
    return host;
}


/// The cells of one type as number_lattice walks them: all the mesh's cells, or for a mesh of
/// several types that type's rows (gathered), with where its slots start (LatticeMeshView).
struct LatticeBlock {
    ElementType type = ElementType::triangle;
    const LatticeTable* table = nullptr;
    std::unique_ptr<ShapeOnExec> shape;
    Array<index_type> own_cells;      ///< a mixed mesh's rows of this type, on the executor
    std::vector<index_type> of_mesh;  ///< a mixed mesh: each block cell's number in the mesh
    Array<index_type> of_mesh_on_exec;  ///< the same on the executor
    LatticeMeshView view;
    int corners = 0;
    Array<index_type> lattice_cells;  ///< table->points.size() numbers per block cell
    Array<index_type> map_rows;       ///< a mixed mesh's curved maps of this type, gathered
    LatticeMapView map;               ///< the maps that place the points
    int map_order = 1;                ///< their order
};

/// A first-order mesh's curved maps (Mesh::curved_cells) on the executor: uploaded from the
/// mesh read, or made there by refinement for the next step of refine_and_number.
struct ExecMaps {
    int order = 0;  ///< 0: none
    int nodes_per_row = 0;
    Array<double> coordinates;
    Array<index_type> cells;

    ExecMaps() = default;
    /// The mesh's curved_cells uploaded, or none.
    ExecMaps(const Mesh& mesh, const ExecPtr& exec)
    {
        if (!mesh.curved_cells) return;
        order = mesh.curved_cells->order;
        nodes_per_row = mesh.curved_cells->nodes_per_row;
        coordinates = Array<double>::from_host(exec, mesh.curved_cells->coordinates);
        cells = Array<index_type>::from_host(exec, mesh.curved_cells->cells);
    }
    /// Whether there are maps.
    explicit operator bool() const { return order > 0; }

    /// Sets block.map: the block's cells and the mesh's nodes, or its cells' curved maps.
    void place(LatticeBlock& block, const Mesh& mesh, const MeshOnExec& input, const ExecPtr& exec) const
    {
        if (order == 0) {
            block.map = {block.view.cells, block.view.nodes_per_cell, input.coordinates};
            block.map_order = mesh.is_mixed() ? 1 : mesh.degree;  // a mixed mesh is of order 1
            return;
        }
        const int width = lagrange_node_count(block.type, order);
        block.map_order = order;
        if (block.of_mesh.empty()) {
            block.map = {cells.data(), nodes_per_row, coordinates.data()};
            return;
        }
        const long long count = static_cast<long long>(block.of_mesh.size());
        block.map_rows = Array<index_type>(exec, block.of_mesh.size() * static_cast<std::size_t>(width));
        GPUFEM_DISPATCH(*exec, copy_rows(*exec, cells.data(), nodes_per_row, block.of_mesh_on_exec.data(),
                                         block.map_rows.data(), width, nullptr, count, width));
        block.map = {block.map_rows.data(), width, coordinates.data()};
    }
};

/// A mesh's lattice of order m: every point numbered, placed, and each cell's list of them
/// (per block), with what the boundary facets need to be numbered alike (on the executor).
struct MeshLattice {
    int order = 1;
    long long points = 0;
    std::vector<LatticeBlock> blocks;  ///< one per cell type, in ElementType order
    LatticeEntities counts;           ///< counts and vertex blocks (no cell arrays: freed)
    Array<double> coordinates;        ///< 3 per point
    Array<index_type> vertex_of_node;
    Array<std::uint64_t> edge_keys, face_keys;  ///< sorted: an entity's number is its position
    Array<index_type> first_edge, first_face, first_cell;  ///< counts' vertex blocks
    Array<long long> vertex_start, face_offset, cell_offset;
};

/// The values of a mesh's order-g basis (g = degree, npc nodes) at the table's points
/// ([q][j]), placed as the nodes of the element of the table's order (element_nodes: GLL on
/// boxes from degree 5) or equispaced (refinement); identity when they are the mesh's own
/// nodes (a copy, bit for bit).
std::vector<double> lattice_basis(ElementType type, int degree, int npc, const LatticeTable& table, bool element_nodes)
{
    const std::size_t points = table.points.size();
    std::vector<double> values(points * npc, 0.0);
    if (table.order == degree && (element_nodes || !has_gll_nodes(type, degree))) {
        for (std::size_t q = 0; q < points; ++q) values[q * npc + q] = 1.0;
        return values;
    }
    std::vector<double> reference;
    for (const auto& at : table.coordinates) {
        const std::vector<double> u = element_nodes ? element_reference_point(type, at, table.order)
                                                    : lattice_reference_point(type, at, table.order);
        reference.insert(reference.end(), u.begin(), u.end());
    }
    std::vector<double> gradients;
    lagrange_basis(type, degree, reference, values, gradients);
    for (double& v : values)
        if (std::abs(v) < 1e-14) v = 0.0;  // exact zeros: other nodes do not move the point
    return values;
}

/// The blocks of a mesh (one, or one per cell type of a mixed mesh of order 1).
std::vector<LatticeBlock> lattice_blocks(const Mesh& mesh, const index_type* cells, int m, const ExecPtr& exec)
{
    std::vector<std::vector<index_type>> of_type(element_type_count);  // a mixed mesh's cells by type
    if (mesh.is_mixed())
        for (index_type c = 0; c < mesh.num_cells(); ++c)
            of_type[static_cast<std::size_t>(mesh.type_of_cell(c))].push_back(c);
    std::vector<LatticeBlock> blocks;
    for (int t = 0; t < element_type_count; ++t) {
        const auto type = static_cast<ElementType>(t);
        if (!mesh.is_mixed() && type != mesh.cell_type) continue;
        LatticeBlock block;
        block.type = type;
        block.corners = element_node_count(type);
        if (mesh.is_mixed()) {
            block.of_mesh = std::move(of_type[static_cast<std::size_t>(t)]);
            if (block.of_mesh.empty()) continue;
            // This type's rows, gathered on the executor (its corners: the mesh is of order 1).
            const long long count = static_cast<long long>(block.of_mesh.size());
            block.of_mesh_on_exec = Array<index_type>::from_host(exec, block.of_mesh);
            block.own_cells = Array<index_type>(exec, block.of_mesh.size() * static_cast<std::size_t>(block.corners));
            GPUFEM_DISPATCH(*exec, copy_rows(*exec, cells, mesh.nodes_per_cell, block.of_mesh_on_exec.data(),
                                             block.own_cells.data(), block.corners, nullptr, count, block.corners));
            block.view = LatticeMeshView{block.own_cells.data(), static_cast<long long>(block.of_mesh.size()),
                                         block.corners, nullptr};
        } else {
            block.view = LatticeMeshView{cells, mesh.num_cells(), mesh.nodes_per_cell, nullptr};
        }
        block.table = &lattice_table(type, m);  // only for the types present
        blocks.push_back(std::move(block));
    }
    return blocks;
}

/// The mesh's lattice of order m, its points placed as the nodes of the order-m element
/// (element_nodes: with_degree) or equispaced in each cell (refinement), by `maps` (or the
/// mesh's own curved_cells, or its cells).
MeshLattice number_lattice(const Mesh& mesh, int m, const ExecPtr& exec, bool element_nodes = false,
                           const ExecMaps* maps = nullptr)
{
    MeshLattice lattice;
    lattice.order = m;
    StageLaps laps;
    const MeshOnExec input(mesh, exec);
    laps.lap_after(*exec, "mesh on the device");
    const long long num_cells = mesh.num_cells(), num_nodes = mesh.num_nodes();
    const int dim = element_dimension(mesh.cell_type);
    lattice.blocks = lattice_blocks(mesh, input.cells, m, exec);
    laps.lap("tables");
    auto& blocks = lattice.blocks;
    const ExecMaps uploaded = maps ? ExecMaps() : ExecMaps(mesh, exec);
    for (LatticeBlock& block : blocks) (maps ? *maps : uploaded).place(block, mesh, input, exec);
    laps.lap_after(*exec, "maps placed");

    // What the faces and cells hold: a number each, or offsets where they differ.
    const int triangle_points = blocks.front().table->face_points(false);
    const int quadrilateral_points = blocks.front().table->face_points(true);
    bool triangles = false, quadrilaterals = false;
    for (const LatticeBlock& block : blocks)
        for (const auto& face : block.table->faces) (face[3] >= 0 ? quadrilaterals : triangles) = true;
    const bool with_faces = dim == 3 && ((triangles && triangle_points > 0) || (quadrilaterals && quadrilateral_points > 0));
    const bool interiors = std::any_of(blocks.begin(), blocks.end(),
                                       [](const LatticeBlock& b) { return b.table->interior_points > 0; });
    LatticePointCounts inside;
    inside.face_points = quadrilaterals ? quadrilateral_points : triangle_points;
    inside.interior_points = blocks.front().table->interior_points;

    Array<index_type> vertex_of_node(exec, static_cast<std::size_t>(num_nodes));
    LatticeEntities& counts = lattice.counts;
    // A mixed mesh's rows hold its corners, then -1 (skipped).
    counts.vertices = GPUFEM_DISPATCH(*exec, number_vertices(*exec, input.cells, num_cells,
                                                            mesh.nodes_per_cell,
                                                            mesh.is_mixed() ? mesh.nodes_per_cell
                                                                            : element_node_count(mesh.cell_type),
                                                            num_nodes, vertex_of_node.data()));
    checked_index(counts.vertices, "vertices of mesh '" + mesh.source + "'");
    laps.lap("vertices");
    long long edge_slots = 0, face_slots = 0, cells_before = 0;
    for (LatticeBlock& block : blocks) {
        block.shape = std::make_unique<ShapeOnExec>(*block.table, with_faces, exec);
        block.view.vertex_of_node = vertex_of_node.data();
        block.view.first_cell = cells_before;
        block.view.edge_slot_base = edge_slots;
        block.view.face_slot_base = face_slots;
        cells_before += block.view.num_cells;
        edge_slots += m > 1 ? block.view.num_cells * block.shape->view.num_edges : 0;
        face_slots += with_faces ? block.view.num_cells * block.shape->view.num_faces : 0;
    }

    // Edges (when they hold points), then faces (3D, when they hold points).
    EntityNumbers edges(exec, edge_slots, "cell edges of mesh '" + mesh.source + "'");
    if (edge_slots > 0) {
        for (const LatticeBlock& block : blocks)
            GPUFEM_DISPATCH(*exec, lattice_edge_keys(*exec, block.view, block.shape->view, edges.slot_keys.data()));
        counts.edges = edges.number(exec, 32 + bits_for(counts.vertices));
    }
    laps.lap("edges");
    counts.cell_edges = edges.of_slot.data();
    EntityNumbers faces(exec, face_slots, "cell faces of mesh '" + mesh.source + "'");
    if (face_slots > 0) {
        for (const LatticeBlock& block : blocks)
            GPUFEM_DISPATCH(*exec, lattice_face_keys(*exec, block.view, block.shape->view, counts,
                                                     faces.slot_keys.data()));
        counts.faces = faces.number(exec, 32 + bits_for(counts.edges));
        if (triangles && quadrilaterals) {
            LatticeKeyPoints per_face;
            per_face.triangle_points = triangle_points;
            per_face.quadrilateral_points = quadrilateral_points;
            lattice.face_offset = Array<long long>(exec, static_cast<std::size_t>(counts.faces + 1));
            GPUFEM_DISPATCH(*exec, lattice_point_offsets(*exec, faces.keys.data(), counts.faces, per_face,
                                                         lattice.face_offset.data()));
            inside.face_offset = lattice.face_offset.data();
        }
    }
    counts.cell_faces = faces.of_slot.data();
    laps.lap("faces");
    // Cells ordered by their lowest vertex (their interior points join that vertex's block).
    EntityNumbers ordered_cells(exec, interiors ? num_cells : 0, "cells of mesh '" + mesh.source + "'");
    if (interiors && num_cells > 0) {
        for (const LatticeBlock& block : blocks)
            GPUFEM_DISPATCH(*exec, lattice_cell_keys(*exec, block.view, block.corners, ordered_cells.slot_keys.data()));
        ordered_cells.number(exec, 32 + bits_for(counts.vertices));
        if (blocks.size() > 1) {
            LatticeKeyPoints per_cell;
            per_cell.faces = false;
            per_cell.blocks = static_cast<int>(blocks.size());
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                per_cell.block_start[b] = blocks[b].view.first_cell;
                per_cell.block_points[b] = blocks[b].table->interior_points;
            }
            lattice.cell_offset = Array<long long>(exec, static_cast<std::size_t>(num_cells + 1));
            GPUFEM_DISPATCH(*exec, lattice_point_offsets(*exec, ordered_cells.keys.data(), num_cells, per_cell,
                                                         lattice.cell_offset.data()));
            inside.cell_offset = lattice.cell_offset.data();
        }
    }
    counts.inside = inside;
    laps.lap("cells");
    const auto per_vertex = static_cast<std::size_t>(counts.vertices + 1);
    lattice.first_edge = Array<index_type>(exec, per_vertex);
    lattice.first_face = Array<index_type>(exec, per_vertex);
    lattice.first_cell = Array<index_type>(exec, per_vertex);
    lattice.vertex_start = Array<long long>(exec, per_vertex);
    lattice.points = GPUFEM_DISPATCH(
        *exec, lattice_vertex_blocks(*exec, counts.vertices, edges.keys.data(), counts.edges,
                                     faces.keys.data(), counts.faces,
                                     interiors ? ordered_cells.keys.data() : nullptr, num_cells, m, inside,
                                     lattice.first_edge.data(), lattice.first_face.data(),
                                     lattice.first_cell.data(), lattice.vertex_start.data()));
    counts.vertex_start = lattice.vertex_start.data();
    counts.first_edge = lattice.first_edge.data();
    counts.first_face = lattice.first_face.data();
    counts.first_cell = lattice.first_cell.data();
    counts.cell_position = interiors ? ordered_cells.of_slot.data() : nullptr;
    checked_index(lattice.points, "nodes of order " + std::to_string(m) + " of mesh '" + mesh.source + "'");
    laps.lap("points numbered");

    lattice.coordinates = Array<double>(exec, 3 * static_cast<std::size_t>(lattice.points));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        LatticeBlock& block = blocks[b];
        const std::size_t points = block.table->points.size();
        checked_index(block.view.num_cells * static_cast<long long>(points),
                      "cell node entries of order " + std::to_string(m) + " of mesh '" + mesh.source + "'");
        const Array<double> basis = Array<double>::from_host(
            exec, lattice_basis(block.type, block.map_order, block.map.nodes_per_cell, *block.table, element_nodes));
        block.lattice_cells = Array<index_type>(exec, static_cast<std::size_t>(block.view.num_cells) * points);
        // The vertices' positions are copied from their nodes once (the first block).
        GPUFEM_DISPATCH(*exec, fill_lattice(*exec, block.view, block.corners, block.shape->view, counts,
                                            basis.data(), block.map, input.coordinates, b == 0 ? num_nodes : 0,
                                            edges.owner.data(), faces.owner.data(),
                                            block.lattice_cells.data(), lattice.coordinates.data()));
    }
    laps.lap_after(*exec, "placed");
    spdlog::debug("lattice of order {} on {} cells: {}", m, num_cells, laps.text);
    lattice.vertex_of_node = std::move(vertex_of_node);
    lattice.edge_keys = std::move(edges.keys);
    lattice.face_keys = std::move(faces.keys);
    counts.cell_edges = counts.cell_faces = counts.cell_position = nullptr;  // freed on return
    return lattice;
}

/// The lattice points of order m of every facet of one boundary group (the facet shape's
/// Gmsh order; lexicographic past order 4), numbered as the cells' lattice, on the executor;
/// throws MeshSourceError naming the first facet that is not a face of the cells.
/// `numbers`: each facet's number in its group for the message (empty: its position).
Array<index_type> facet_lattice(const BoundaryFacets& facets, const Mesh& mesh,
                                const MeshLattice& lattice, const ExecPtr& exec,
                                const std::string& where, const std::vector<std::size_t>& numbers = {})
{
    const LatticeTable& table = lattice_table(facets.type, lattice.order);
    const ShapeOnExec shape(table, true, exec);
    const Array<index_type> on_exec =
        exec->is_cuda() ? Array<index_type>::from_host(exec, facets.connectivity) : Array<index_type>();
    const LatticeFacetView view{exec->is_cuda() ? on_exec.data() : facets.connectivity.data(),
                                static_cast<long long>(facets.size()), facets.nodes_per_facet,
                                element_node_count(facets.type)};
    const LatticeKeys keys{lattice.edge_keys.data(), lattice.counts.edges, lattice.face_keys.data(),
                           lattice.counts.faces};
    Array<index_type> out(exec, facets.size() * table.points.size());
    const long long failure = GPUFEM_DISPATCH(
        *exec, fill_facet_lattice(*exec, view, lattice.vertex_of_node.data(), mesh.num_nodes(),
                                  shape.view, lattice.counts, keys, out.data()));
    if (failure >= 0) {
        const auto at = static_cast<std::size_t>(failure / 4);
        const std::string facet = where + ": facet " + std::to_string(numbers.empty() ? at : numbers[at]);
        switch (failure % 4) {
        case facet_corner_not_a_vertex:
            throw MeshSourceError(facet + " has a corner that is no cell's corner");
        case facet_edge_not_a_cell_edge:
            throw MeshSourceError(facet + " has an edge that is no cell's edge");
        default: throw MeshSourceError(facet + " is no cell's face");
        }
    }
    return out;
}

/// facet_lattice of a group, on the host; a group of triangles and quadrilaterals (of order
/// 1) as two, merged into rows of a quadrilateral's points, a triangle's ending with -1.
std::vector<index_type> facet_lattice_rows(const BoundaryFacets& facets, const Mesh& mesh,
                                           const MeshLattice& lattice, const ExecPtr& exec,
                                           const std::string& where)
{
    if (!facets.mixed_triangles) return facet_lattice(facets, mesh, lattice, exec, where).to_host();
    BoundaryFacets shaped[2];  // triangles, quadrilaterals
    std::vector<std::size_t> numbers[2];
    for (int k = 0; k < 2; ++k) {
        shaped[k].type = k == 0 ? ElementType::triangle : ElementType::quadrilateral;
        shaped[k].nodes_per_facet = k == 0 ? 3 : 4;
    }
    for (std::size_t f = 0; f < facets.size(); ++f) {
        const index_type* nodes = &facets.connectivity[f * facets.nodes_per_facet];
        const int k = nodes[3] < 0 ? 0 : 1;
        shaped[k].connectivity.insert(shaped[k].connectivity.end(), nodes, nodes + shaped[k].nodes_per_facet);
        numbers[k].push_back(f);
    }
    const std::size_t stride = lattice_table(ElementType::quadrilateral, lattice.order).points.size();
    std::vector<index_type> rows(facets.size() * stride, -1);
    for (int k = 0; k < 2; ++k) {
        if (numbers[k].empty()) continue;
        const std::vector<index_type> points = facet_lattice(shaped[k], mesh, lattice, exec, where, numbers[k]).to_host();
        const std::size_t per = points.size() / numbers[k].size();
        for (std::size_t i = 0; i < numbers[k].size(); ++i)
            std::copy_n(points.begin() + static_cast<std::ptrdiff_t>(i * per), per,
                        rows.begin() + static_cast<std::ptrdiff_t>(numbers[k][i] * stride));
    }
    return rows;
}

/// The new mesh's header: everything but nodes, cells and boundaries.
Mesh derived_mesh(const Mesh& mesh, int degree)
{
    Mesh out;
    out.dim = mesh.dim;
    out.cell_type = mesh.cell_type;
    out.degree = degree;
    out.nodes_per_cell = lagrange_node_count(mesh.cell_type, degree);
    if (mesh.is_mixed()) {  // the most nodes of the types present
        out.cell_types = mesh.cell_types;
        out.nodes_per_cell = 0;
        for (int t = 0; t < element_type_count; ++t)
            if (mesh.has_cells_of(static_cast<ElementType>(t)))
                out.nodes_per_cell = std::max(out.nodes_per_cell, lagrange_node_count(static_cast<ElementType>(t), degree));
    }
    out.subdomains = mesh.subdomains;
    out.ignored_boundaries = mesh.ignored_boundaries;
    out.source = mesh.source;
    out.build_times = mesh.build_times;
    return out;
}

/// Whether a new mesh's host arrays are written, or only sized (a device mesh between two
/// steps of refine_and_number, read from Mesh::device by the next step).
enum class HostArrays { written, sized };

/// Moves the lattice's coordinates and the given cells into the mesh (host arrays, and the
/// device copy on a CUDA executor, with the cells' groups when the host arrays are written);
/// the copy to the host counts in build_times.host_copy.
void store_nodes_and_cells(Mesh& out, Array<double>&& coordinates, Array<index_type>&& cells,
                           const ExecPtr& exec, HostArrays host)
{
    const auto start = std::chrono::steady_clock::now();
    out.coordinates.resize(coordinates.size());
    out.cells.resize(cells.size());
    if (host == HostArrays::written || !exec->is_cuda()) {
        copy_bytes(*host_executor(), out.coordinates.data(), *exec, coordinates.data(), coordinates.bytes());
        copy_bytes(*host_executor(), out.cells.data(), *exec, cells.data(), cells.bytes());
    }
    if (exec->is_cuda()) {
        auto device = std::make_shared<MeshOnDevice>();
        device->coordinates = std::move(coordinates);
        device->cells = std::move(cells);
        // The finished mesh's regions too, for the coefficients and integrals by region.
        if (host == HostArrays::written && !out.cell_group.empty())
            device->cell_group = Array<int>::from_host(exec, std::span<const int>(out.cell_group.data(), out.cell_group.size()));
        out.device = std::move(device);
    }
    out.build_times.host_copy +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Each boundary group through `convert` (facet connectivity of the input -> of the output);
/// a group it refuses moves to ignored_boundaries.
template <typename Convert>
void convert_boundaries(const Mesh& mesh, Mesh& out, int degree, Convert&& convert)
{
    for (const BoundaryFacets& facets : mesh.boundaries) {
        const std::string where = "boundary group '" + facets.group.name + "' of mesh '" + mesh.source + "'";
        try {
            BoundaryFacets converted;
            converted.group = facets.group;
            converted.type = facets.type;
            converted.degree = degree;
            converted.nodes_per_facet = lagrange_node_count(facets.type, degree);
            converted.mixed_triangles = facets.mixed_triangles;
            converted.connectivity = convert(facets, where);
            out.boundaries.push_back(std::move(converted));
        } catch (const MeshSourceError& e) {
            out.ignored_boundaries.push_back({facets.group.name, e.what()});
        }
    }
}

/// Throws unless the mesh is one these functions handle.
void check_input(const Mesh& mesh, const std::string& what)
{
    if (mesh.is_mixed()) {  // rows of corners, -1 after them
        if (mesh.degree != 1 || element_dimension(mesh.cell_type) != mesh.dim ||
            mesh.nodes_per_cell != element_node_count(mesh.cell_type) ||
            mesh.cell_types.size() != static_cast<std::size_t>(mesh.num_cells()))
            throw std::invalid_argument(what + ": mesh '" + mesh.source + "' of several cell types is not of order 1");
        return;
    }
    if (mesh.degree < 1 || mesh.degree > max_lagrange_degree(mesh.cell_type) ||
        element_dimension(mesh.cell_type) != mesh.dim ||
        mesh.nodes_per_cell != lagrange_node_count(mesh.cell_type, mesh.degree))
        throw std::invalid_argument(what + ": mesh '" + mesh.source + "' is not a mesh of complete Lagrange cells of order 1.." +
                                    std::to_string(max_lagrange_degree(mesh.cell_type)));
    if (mesh.first_order_only() && mesh.degree != 1)  // their facet groups are read at order 1
        throw std::invalid_argument(what + ": mesh '" + mesh.source + "' of " + mesh.describe_cells() +
                                    " is numbered and refined from order 1 only");
}

/// The lattice's cells into the mesh: the one block's array, or a mixed mesh's blocks
/// scattered into its padded rows on the executor (each type's nodes, then -1).
void store_lattice(Mesh& out, MeshLattice&& lattice, const ExecPtr& exec)
{
    if (lattice.blocks.size() == 1 && lattice.blocks.front().of_mesh.empty()) {
        store_nodes_and_cells(out, std::move(lattice.coordinates), std::move(lattice.blocks.front().lattice_cells),
                              exec, HostArrays::written);
        return;
    }
    const int stride = out.nodes_per_cell;
    Array<index_type> cells(exec, out.cell_types.size() * static_cast<std::size_t>(stride));
    for (const LatticeBlock& block : lattice.blocks) {
        const int per = static_cast<int>(block.table->points.size());
        GPUFEM_DISPATCH(*exec, copy_rows(*exec, block.lattice_cells.data(), per, nullptr, cells.data(), stride,
                                         block.of_mesh_on_exec.data(), static_cast<long long>(block.of_mesh.size()), per));
    }
    store_nodes_and_cells(out, std::move(lattice.coordinates), std::move(cells), exec, HostArrays::written);
}

/// The children of one block's cells of one shape (fill_children's rows, on the executor).
struct ChildRows {
    ElementType type = ElementType::triangle;
    int per_parent = 0;  ///< children of this shape per parent
    int nodes = 0;       ///< nodes per child
    Array<index_type> rows;
};

/// Each block's children, one ChildRows per child shape of its pattern, and for every child
/// of the pattern: which ChildRows holds it and its rank there.
struct BlockChildren {
    std::vector<ChildRows> shapes;
    std::vector<std::pair<int, int>> of_child;
};

/// The pattern's diagonals, flat, on the executor (empty: a shape without choices).
Array<int> pattern_diagonals(const RefinementPattern& pattern, const ExecPtr& exec)
{
    std::vector<int> diagonals;
    for (const auto& d : pattern.diagonals) diagonals.insert(diagonals.end(), d.begin(), d.end());
    return diagonals.empty() ? Array<int>() : Array<int>::from_host(exec, diagonals);
}

/// Each block cell's refinement pattern on the lattice of order 2 (null when the shape has no
/// choice), so that the children of another order take the same.
Array<std::uint8_t> block_choices(const LatticeBlock& block, const MeshLattice& lattice, const ExecPtr& exec)
{
    const RefinementPattern& pattern = refinement_pattern(block.type, 1);
    if (pattern.diagonals.empty()) return {};
    const Array<int> diagonals = pattern_diagonals(pattern, exec);
    Array<std::uint8_t> chosen(exec, static_cast<std::size_t>(block.view.num_cells));
    GPUFEM_DISPATCH(*exec, refinement_choices(*exec, block.lattice_cells.data(), block.view.num_cells,
                                              static_cast<int>(block.table->points.size()),
                                              static_cast<int>(pattern.children.size()), diagonals.data(),
                                              lattice.coordinates.data(), chosen.data()));
    return chosen;
}

/// The children of order g of one block's cells on its lattice of order 2g, by child shape;
/// `chosen` (or null: the shortest diagonal) each cell's pattern.
BlockChildren block_children(const LatticeBlock& block, const MeshLattice& lattice, const ExecPtr& exec, int g = 1,
                             const std::uint8_t* chosen = nullptr)
{
    const RefinementPattern& pattern = refinement_pattern(block.type, g);
    BlockChildren out;
    std::vector<std::vector<int>> by_shape;  // child indices of each shape, in pattern order
    for (std::size_t s = 0; s < pattern.child_types.size(); ++s) {
        std::size_t k = 0;
        while (k < out.shapes.size() && out.shapes[k].type != pattern.child_types[s]) ++k;
        if (k == out.shapes.size()) {
            out.shapes.push_back({pattern.child_types[s], 0, lagrange_node_count(pattern.child_types[s], g), {}});
            by_shape.emplace_back();
        }
        out.of_child.emplace_back(static_cast<int>(k), static_cast<int>(by_shape[k].size()));
        by_shape[k].push_back(static_cast<int>(s));
    }
    const Array<int> diagonals = pattern_diagonals(pattern, exec);
    const int patterns = static_cast<int>(pattern.children.size());
    for (std::size_t k = 0; k < out.shapes.size(); ++k) {
        ChildRows& shape = out.shapes[k];
        shape.per_parent = static_cast<int>(by_shape[k].size());
        std::vector<int> flat;
        for (const auto& p : pattern.children)
            for (const int s : by_shape[k]) flat.insert(flat.end(), p[s].begin(), p[s].end());
        const Array<int> flat_on_exec = Array<int>::from_host(exec, flat);
        Array<index_type> rows(exec, static_cast<std::size_t>(block.view.num_cells) * shape.per_parent * shape.nodes);
        GPUFEM_DISPATCH(*exec, fill_children(*exec, block.lattice_cells.data(), block.view.num_cells,
                                             static_cast<int>(block.table->points.size()), flat_on_exec.data(),
                                             patterns, shape.per_parent, shape.nodes,
                                             diagonals.size() == 0 ? nullptr : diagonals.data(),
                                             lattice.coordinates.data(), chosen, rows.data()));
        shape.rows = std::move(rows);
    }
    return out;
}

/// Where refine_by_blocks puts each block's children: per block and child shape, the refined
/// mesh's cell of each (parent, rank) row.
using ChildDestinations = std::vector<std::vector<std::vector<index_type>>>;

/// The children's rows of one order scattered on the executor into rows of `stride` entries
/// of the refined mesh's cells (padded with -1).
Array<index_type> scatter_children(const std::vector<BlockChildren>& children, const ChildDestinations& destination,
                                   long long cells, int stride, const ExecPtr& exec)
{
    Array<index_type> rows(exec, static_cast<std::size_t>(cells * stride));
    for (std::size_t b = 0; b < children.size(); ++b)
        for (std::size_t k = 0; k < children[b].shapes.size(); ++k) {
            const ChildRows& shape = children[b].shapes[k];
            const Array<index_type> to = Array<index_type>::from_host(exec, destination[b][k]);
            GPUFEM_DISPATCH(*exec, copy_rows(*exec, shape.rows.data(), shape.nodes, nullptr, rows.data(), stride,
                                             to.data(), static_cast<long long>(destination[b][k].size()), shape.nodes));
        }
    return rows;
}

/// A facet group's lattice rows of order 2g (facet_lattice_rows) split into the facets'
/// children of order g (lines into 2, triangles and quadrilaterals into 4; in a group of
/// triangles and quadrilaterals, a triangle's rows end with -1).
std::vector<index_type> split_facets(const BoundaryFacets& facets, const std::vector<index_type>& lattice_rows, int g = 1)
{
    const auto& own = refinement_pattern(facets.type, g).children.front();
    const auto& triangle = refinement_pattern(ElementType::triangle, g).children.front();
    const int triangle_points = lagrange_node_count(ElementType::triangle, 2 * g);
    const std::size_t per = facets.size() == 0 ? 0 : lattice_rows.size() / facets.size();
    const int stride = lagrange_node_count(facets.type, g);
    std::vector<index_type> out;
    for (std::size_t f = 0; f < facets.size(); ++f) {
        const index_type* row = &lattice_rows[f * per];
        const bool is_triangle = facets.mixed_triangles && row[triangle_points] < 0;
        for (const auto& child : is_triangle ? triangle : own) {
            for (const int q : child) out.push_back(row[q]);
            for (std::size_t pad = child.size(); pad < static_cast<std::size_t>(stride); ++pad) out.push_back(-1);
        }
    }
    return out;
}

/// The children's curved maps: each parent's map (`maps`) at its lattice of order 2g cut into
/// its children of order g, with the patterns the corners took (`chosen`, per block), in the
/// refined mesh's cell order, on the executor. With `curved` (facets of the parents' corners)
/// and `curved_children`, the latter gets those facets' children of order g as rows of the
/// children's maps' nodes.
ExecMaps refined_maps(const Mesh& mesh, const ExecMaps& maps, const std::vector<Array<std::uint8_t>>& chosen,
                      const ChildDestinations& destination, long long cells, const ExecPtr& exec,
                      const BoundaryFacets* curved = nullptr, BoundaryFacets* curved_children = nullptr)
{
    const int g = maps.order;
    MeshLattice lattice = number_lattice(mesh, 2 * g, exec, false, &maps);
    if (curved && curved_children) {
        *curved_children = *curved;
        curved_children->connectivity =
            split_facets(*curved, facet_lattice_rows(*curved, mesh, lattice, exec, "the curved boundary of mesh '" +
                                                                                        mesh.source + "'"), g);
        curved_children->degree = g;
        curved_children->nodes_per_facet = lagrange_node_count(curved->type, g);
    }
    std::vector<BlockChildren> children;
    int stride = 0;
    for (std::size_t b = 0; b < lattice.blocks.size(); ++b) {
        children.push_back(block_children(lattice.blocks[b], lattice, exec, g,
                                          chosen[b].size() == 0 ? nullptr : chosen[b].data()));
        for (const ChildRows& shape : children.back().shapes) stride = std::max(stride, shape.nodes);
    }
    checked_index(cells * stride, "curved cell nodes of mesh '" + mesh.source + "' refined");
    for (LatticeBlock& block : lattice.blocks) block.lattice_cells = Array<index_type>();
    ExecMaps out;
    out.order = g;
    out.nodes_per_row = stride;
    out.cells = scatter_children(children, destination, cells, stride, exec);
    out.coordinates = std::move(lattice.coordinates);
    return out;
}

/// The maps on the host, as Mesh::curved_cells.
std::shared_ptr<const CellGeometry> maps_on_host(const ExecMaps& maps)
{
    auto out = std::make_shared<CellGeometry>();
    out->order = maps.order;
    out->nodes_per_row = maps.nodes_per_row;
    out->cells = maps.cells.to_host();
    out->coordinates = maps.coordinates.to_host();
    return out;
}

/// Numbers the children parent by parent, each parent's in its pattern's order (by the
/// host's threads: 500k parents, a few million entries): where each block's children go, and
/// each child's type (out.cell_types when sized), group and parent (when `parent` is sized).
ChildDestinations place_children(const Mesh& mesh, const MeshLattice& lattice,
                                 const std::vector<BlockChildren>& children, const std::vector<int>& block_of,
                                 const std::vector<index_type>& local_of, Mesh& out, std::vector<index_type>& parent)
{
    std::vector<long long> first_child(static_cast<std::size_t>(mesh.num_cells()) + 1, 0);
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        first_child[static_cast<std::size_t>(c) + 1] =
            first_child[static_cast<std::size_t>(c)] +
            static_cast<long long>(children[static_cast<std::size_t>(block_of[static_cast<std::size_t>(c)])].of_child.size());
    ChildDestinations destination(lattice.blocks.size());
    for (std::size_t b = 0; b < lattice.blocks.size(); ++b)
        for (const ChildRows& shape : children[b].shapes)
            destination[b].emplace_back(static_cast<std::size_t>(lattice.blocks[b].view.num_cells) * shape.per_parent);
    const bool types = !out.cell_types.empty();
#pragma omp parallel for schedule(static)
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const std::size_t b = static_cast<std::size_t>(block_of[static_cast<std::size_t>(c)]);
        const BlockChildren& block = children[b];
        const std::size_t i = static_cast<std::size_t>(local_of[static_cast<std::size_t>(c)]);
        std::size_t next = static_cast<std::size_t>(first_child[static_cast<std::size_t>(c)]);
        for (const auto& [k, rank] : block.of_child) {
            const ChildRows& shape = block.shapes[static_cast<std::size_t>(k)];
            destination[b][static_cast<std::size_t>(k)][i * shape.per_parent + static_cast<std::size_t>(rank)] =
                static_cast<index_type>(next);
            if (types) out.cell_types[next] = static_cast<std::uint8_t>(shape.type);
            out.cell_group[next] = mesh.cell_group.empty() ? 0 : mesh.cell_group[static_cast<std::size_t>(c)];
            if (!parent.empty()) parent[next] = c;
            ++next;
        }
    }
    return destination;
}

/// Which curved maps refine_by_blocks reads and where it puts its children's.
struct MapsRoute {
    const ExecMaps* parents = nullptr;  ///< the mesh's on the executor (null: its curved_cells)
    ExecMaps* children = nullptr;       ///< the children's on the executor (null: Mesh::curved_cells)
    bool wanted = true;                 ///< false: the children's are not made (none follows)
    /// When not null (and the children's maps are made): the curved facets' children as rows
    /// of the children's maps' nodes (refined_maps).
    BoundaryFacets* curved_children = nullptr;
};

/// refine_once of a mesh of prisms, pyramids or several cell types (of order 1): each block's
/// children per child shape (a pyramid's are pyramids and tetrahedra), scattered on the
/// executor into the refined mesh's rows, parent by parent, each parent's children in its
/// pattern's order. A mesh with curved maps (Mesh::curved_cells) places the new nodes by
/// them and gives its children their part of them. `curved` (facets on the CAD geometry, or
/// null) is split like the boundary groups; with route.curved_children its facets' children
/// also come as rows of the children's maps' nodes.
Mesh refine_by_blocks(const Mesh& mesh, const ExecPtr& exec, HostArrays host, const MapsRoute& route = {},
                      BoundaryFacets* curved = nullptr)
{
    if (mesh.degree != 1)
        throw std::invalid_argument("refine_uniformly: mesh '" + mesh.source + "' of " + mesh.describe_cells() +
                                    " is not of order 1");
    const ExecMaps uploaded = route.parents ? ExecMaps() : ExecMaps(mesh, exec);
    const ExecMaps& maps = route.parents ? *route.parents : uploaded;
    MeshLattice lattice = number_lattice(mesh, 2, exec, false, &maps);
    std::vector<BlockChildren> children;
    std::vector<Array<std::uint8_t>> chosen;  // children's maps wanted: the patterns, for them too
    std::vector<int> block_of(static_cast<std::size_t>(mesh.num_cells()), 0);
    std::vector<index_type> local_of(static_cast<std::size_t>(mesh.num_cells()));
    long long cells = 0;
    std::vector<bool> present(element_type_count, false);
    for (std::size_t b = 0; b < lattice.blocks.size(); ++b) {
        const LatticeBlock& block = lattice.blocks[b];
        chosen.push_back(maps && route.wanted ? block_choices(block, lattice, exec) : Array<std::uint8_t>());
        children.push_back(block_children(block, lattice, exec, 1, chosen.back().size() == 0 ? nullptr : chosen.back().data()));
        for (index_type i = 0; i < static_cast<index_type>(block.view.num_cells); ++i) {
            const index_type c = block.of_mesh.empty() ? i : block.of_mesh[static_cast<std::size_t>(i)];
            block_of[static_cast<std::size_t>(c)] = static_cast<int>(b);
            local_of[static_cast<std::size_t>(c)] = i;
        }
        cells += block.view.num_cells * static_cast<long long>(children.back().of_child.size());
        for (const ChildRows& shape : children.back().shapes) present[static_cast<std::size_t>(shape.type)] = true;
    }
    checked_index(cells, "cells of mesh '" + mesh.source + "' refined");

    Mesh out = derived_mesh(mesh, 1);
    out.cell_types.clear();
    int kinds = 0, stride = 0;
    for (int t = 0; t < element_type_count; ++t)
        if (present[static_cast<std::size_t>(t)]) {
            ++kinds;
            if (element_node_count(static_cast<ElementType>(t)) > stride) {
                stride = element_node_count(static_cast<ElementType>(t));
                out.cell_type = static_cast<ElementType>(t);
            }
        }
    out.nodes_per_cell = stride;
    checked_index(cells * stride, "cell node entries of mesh '" + mesh.source + "' refined");
    if (kinds > 1) out.cell_types.resize(static_cast<std::size_t>(cells));
    out.cell_group.resize(static_cast<std::size_t>(cells));
    std::vector<index_type> parent(mesh.cell_fields.empty() ? 0 : static_cast<std::size_t>(cells));
    const ChildDestinations destination = place_children(mesh, lattice, children, block_of, local_of, out, parent);
    Array<index_type> rows = scatter_children(children, destination, cells, stride, exec);
    out.cell_fields = cell_fields_of(mesh.cell_fields, parent);
    children.clear();  // before the host copies: less memory at the peak
    const auto split_group = [&](const BoundaryFacets& facets, const std::string& where) {
        return split_facets(facets, facet_lattice_rows(facets, mesh, lattice, exec, where));
    };
    convert_boundaries(mesh, out, 1, split_group);
    const bool maps_wanted = maps && route.wanted;
    const BoundaryFacets parents_curved = curved && maps_wanted && route.curved_children ? *curved : BoundaryFacets();
    if (curved) curved->connectivity = split_group(*curved, "the curved boundary of mesh '" + mesh.source + "'");
    store_nodes_and_cells(out, std::move(lattice.coordinates), std::move(rows), exec, host);
    if (!maps_wanted) return out;
    for (LatticeBlock& block : lattice.blocks) block.lattice_cells = Array<index_type>();
    ExecMaps children_maps = refined_maps(mesh, maps, chosen, destination, cells, exec,
                                          curved ? &parents_curved : nullptr, route.curved_children);
    if (route.children) *route.children = std::move(children_maps);
    else out.curved_cells = maps_on_host(children_maps);
    return out;
}

/// refine_uniformly, the host arrays written or only sized; `curved` (facets on the CAD
/// geometry, or null) split like the boundary groups. The children are of order `order`
/// (1..the mesh's; 0: the mesh's), their nodes placed by the parents' maps: a last
/// refinement straight to the degree's order spares the finer mesh of the parents' order.
Mesh refine_once(const Mesh& mesh, const ExecPtr& exec, HostArrays host, BoundaryFacets* curved = nullptr,
                 int order = 0, const MapsRoute& maps = {})
{
    check_input(mesh, "refine_uniformly");
    if (mesh.degree >= first_gll_degree)  // the children's GLL nodes are not on the parent's lattice
        throw std::invalid_argument("refine_uniformly: mesh '" + mesh.source + "' is of degree " +
                                    std::to_string(mesh.degree) + "; refine at degree 1..4, then raise the degree");
    if (mesh.first_order_only()) return refine_by_blocks(mesh, exec, host, maps, curved);
    if (order < 0 || order > mesh.degree) throw std::invalid_argument("refine_uniformly: children of order 1..the mesh's");
    const int g = order == 0 ? mesh.degree : order;  // the children's order
    const RefinementPattern& pattern = refinement_pattern(mesh.cell_type, g);
    StageLaps laps;
    MeshLattice lattice = number_lattice(mesh, 2 * g, exec);
    laps.lap_after(*exec, "lattice");
    Array<index_type>& lattice_cells = lattice.blocks.front().lattice_cells;
    const int points_per_cell = static_cast<int>(lattice.blocks.front().table->points.size());
    const int children = static_cast<int>(pattern.children.front().size());
    const int nodes_per_child = lagrange_node_count(mesh.cell_type, g);
    const long long cells = static_cast<long long>(mesh.num_cells()) * children;
    checked_index(cells, "cells of mesh '" + mesh.source + "' refined");
    checked_index(cells * nodes_per_child, "cell node entries of mesh '" + mesh.source + "' refined");

    std::vector<int> flat, diagonals;
    for (const auto& p : pattern.children)
        for (const auto& child : p) flat.insert(flat.end(), child.begin(), child.end());
    for (const auto& d : pattern.diagonals) diagonals.insert(diagonals.end(), d.begin(), d.end());
    const Array<int> flat_on_exec = Array<int>::from_host(exec, flat);
    const Array<int> diagonals_on_exec = Array<int>::from_host(exec, diagonals);
    Array<index_type> refined(exec, static_cast<std::size_t>(cells * nodes_per_child));
    GPUFEM_DISPATCH(*exec, fill_children(*exec, lattice_cells.data(), mesh.num_cells(), points_per_cell,
                                         flat_on_exec.data(), static_cast<int>(pattern.children.size()),
                                         children, nodes_per_child,
                                         diagonals.empty() ? nullptr : diagonals_on_exec.data(),
                                         lattice.coordinates.data(), nullptr, refined.data()));
    laps.lap_after(*exec, "children");

    Mesh out = derived_mesh(mesh, g);
    if (mesh.degree == 1 && !mesh.is_mixed()) {  // pmg's h-level: the parents and their patterns
        auto parents = std::make_shared<RefinementParents>();
        parents->parent_cells = mesh.device && exec->is_cuda()
                                    ? mesh.device->cells.clone_to(exec)
                                    : Array<index_type>::from_host(exec, std::span<const index_type>(
                                                                             mesh.cells.data(), mesh.cells.size()));
        parents->parent_nodes = mesh.num_nodes();
        parents->children = children;
        parents->previous = mesh.refined_from;
        parents->pattern = Array<std::uint8_t>(exec, static_cast<std::size_t>(mesh.num_cells()));
        GPUFEM_DISPATCH(*exec, refinement_choices(*exec, lattice_cells.data(), mesh.num_cells(), points_per_cell,
                                                  static_cast<int>(pattern.children.size()),
                                                  diagonals.empty() ? nullptr : diagonals_on_exec.data(),
                                                  lattice.coordinates.data(), parents->pattern.data()));
        out.refined_from = std::move(parents);
    }
    // Child s of parent c is cell c children + s: it takes the parent's group (and fields).
    out.cell_group.resize(static_cast<std::size_t>(cells));  // not zeroed: every entry is written here
    const bool grouped = !mesh.cell_group.empty();
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < static_cast<long long>(mesh.num_cells()); ++c)
        std::fill_n(out.cell_group.begin() + c * children, children, grouped ? mesh.cell_group[static_cast<std::size_t>(c)] : 0);
    if (!mesh.cell_fields.empty()) {
        std::vector<index_type> parent(static_cast<std::size_t>(cells));
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < cells; ++i) parent[static_cast<std::size_t>(i)] = static_cast<index_type>(i / children);
        out.cell_fields = cell_fields_of(mesh.cell_fields, parent);
    }
    laps.lap_after(*exec, "parents and groups");
    lattice_cells = Array<index_type>();  // before the host copies: less memory at the peak
    store_nodes_and_cells(out, std::move(lattice.coordinates), std::move(refined), exec, host);
    laps.lap_after(*exec, "stored");

    const RefinementPattern& facet_pattern = refinement_pattern(boundary_facet_shape(mesh), g);
    const auto& facet_children = facet_pattern.children.front();
    std::vector<int> facet_flat;
    for (const auto& child : facet_children) facet_flat.insert(facet_flat.end(), child.begin(), child.end());
    const Array<int> facet_flat_on_exec = Array<int>::from_host(exec, facet_flat);
    const auto split_group = [&](const BoundaryFacets& facets, const std::string& where) {
        const Array<index_type> points = facet_lattice(facets, mesh, lattice, exec, where);
        const int children = static_cast<int>(facet_children.size());
        const int per_child = static_cast<int>(facet_children.front().size());
        Array<index_type> split(exec, facets.size() * children * per_child);
        GPUFEM_DISPATCH(*exec, fill_children(*exec, points.data(), static_cast<long long>(facets.size()),
                                             static_cast<int>(lattice_table(facets.type, 2 * g).points.size()),
                                             facet_flat_on_exec.data(), 1, children, per_child, nullptr,
                                             nullptr, nullptr, split.data()));
        return split.to_host();
    };
    convert_boundaries(mesh, out, g, split_group);
    if (curved) {
        curved->connectivity = split_group(*curved, "the curved boundary of mesh '" + mesh.source + "'");
        curved->degree = g;
        curved->nodes_per_facet = lagrange_node_count(curved->type, g);
    }
    laps.lap_after(*exec, "boundaries");
    spdlog::debug("refinement of {} cells: {}", mesh.num_cells(), laps.text);
    return out;
}

/// with_degree, the new nodes placed by `maps` (null: the mesh's curved_cells, or cells).
Mesh with_degree_by(const Mesh& mesh, int degree, const ExecPtr& exec, const ExecMaps* maps)
{
    check_input(mesh, "with_degree");
    for (int t = 0; t < element_type_count; ++t) {
        const auto type = static_cast<ElementType>(t);
        if (mesh.has_cells_of(type) && (degree < 1 || degree > max_lagrange_degree(type)))
            throw std::invalid_argument("with_degree: degree " + std::to_string(degree) + " of " +
                                        element_type_plural(type) + " outside 1.." +
                                        std::to_string(max_lagrange_degree(type)));
    }
    MeshLattice lattice = number_lattice(mesh, degree, exec, true, maps);
    Mesh out = derived_mesh(mesh, degree);
    out.cell_group = mesh.cell_group;
    out.cell_fields = mesh.cell_fields;
    // The vertices keep the first-order mesh's numbering (number_vertices: every node of a
    // first-order mesh is a vertex, numbered in node order), so its parents still hold.
    if (mesh.degree == 1) out.refined_from = mesh.refined_from;
    convert_boundaries(mesh, out, degree, [&](const BoundaryFacets& facets, const std::string& where) {
        return facet_lattice_rows(facets, mesh, lattice, exec, where);
    });
    store_lattice(out, std::move(lattice), exec);
    return out;
}

}  // namespace

Mesh refine_uniformly(const Mesh& mesh, const ExecPtr& exec)
{
    return refine_once(mesh, exec, HostArrays::written);
}

Mesh with_degree(const Mesh& mesh, int degree, const ExecPtr& exec)
{
    return with_degree_by(mesh, degree, exec, nullptr);
}

Mesh refine_and_number(Mesh mesh, int refine, int degree, const ExecPtr& exec)
{
    check_input(mesh, "refine_and_number");
    // Curved cells refined for a lower degree (P1 on Gmsh's cells of order 2): the last
    // refinement makes the degree's children directly.
    const bool straight_to_degree = refine > 0 && degree < mesh.degree && !mesh.first_order_only();
    const int refined_order = straight_to_degree ? degree : mesh.degree;
    const bool renumber = refined_order != degree || (refine == 0 && degree > 1);
    StageLaps laps;
    std::optional<CadSnap> snap = cad_snap_for(mesh, refine);
    laps.lap("CAD points");
    // A first-order mesh's curved maps stay on the executor from step to step; the last
    // refinement makes its children's only for the degree's nodes.
    ExecMaps maps = refine > 0 || renumber ? ExecMaps(mesh, exec) : ExecMaps();
    laps.lap_after(*exec, "maps");
    BoundaryFacets curved_map_facets;  // curved maps: the facets' children among the last maps' nodes
    for (int r = 0; r < refine; ++r) {
        const bool last = r + 1 == refine;
        ExecMaps children;
        const MapsRoute route{&maps, &children, !last || renumber, last && snap ? &curved_map_facets : nullptr};
        mesh = refine_once(mesh, exec, last && !renumber ? HostArrays::written : HostArrays::sized,
                           snap ? &snap->facets : nullptr, last ? refined_order : 0, route);
        maps = std::move(children);
        laps.lap_after(*exec, last ? "last refinement" : "refinement");
    }
    if (snap) {
        if (maps && curved_map_facets.size() > 0)  // the degree's nodes will follow the maps
            snap_map_nodes_to_cad(maps.coordinates, curved_map_facets, *snap, exec, mesh.source);
        snap_to_cad(mesh, *snap, exec, !renumber);
        spdlog::debug("mesh '{}': the nodes of {} refined facets moved onto the curved geometry", mesh.source,
                      snap->facets.size());
        laps.lap_after(*exec, "snap");
    }
    if (renumber) mesh = with_degree_by(mesh, degree, exec, maps ? &maps : nullptr);
    mesh.curved_cells.reset();  // the nodes now carry the geometry the degree can describe
    laps.lap_after(*exec, "degree");
    spdlog::debug("mesh '{}' refined {} times to {} cells: {}", mesh.source, refine, mesh.num_cells(), laps.text);
    return mesh;
}

}  // namespace gpufem
