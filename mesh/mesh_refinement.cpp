#include "mesh/mesh_refinement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "linalg/array.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_kernels.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/mesh_entities.hpp"

namespace gpufem {
namespace {

const ExecPtr& host_executor()
{
    static const ExecPtr host = Executor::create_cpu();
    return host;
}

/// The shape of a mesh's boundary facets.
ElementType facet_shape(const Mesh& mesh)
{
    if (mesh.dim == 2) return ElementType::line;
    return mesh.cell_type == ElementType::hexahedron ? ElementType::quadrilateral : ElementType::triangle;
}

/// A mesh's lattice of order m: every point numbered, placed, and each cell's list of them,
/// with what the boundary facets need to be numbered alike (on the executor).
struct MeshLattice {
    const LatticeTable* table = nullptr;
    long long points = 0;
    LatticeEntities counts;           ///< counts and vertex blocks (no cell arrays: freed)
    Array<index_type> cells;          ///< table->points.size() numbers per cell
    Array<double> coordinates;        ///< 3 per point
    Array<index_type> vertex_of_node;
    Array<std::uint64_t> edge_keys, face_keys;  ///< sorted: an entity's number is its position
    Array<index_type> first_edge, first_face, first_cell;  ///< counts' vertex blocks
    Array<long long> vertex_start;
};

/// The values of the mesh's order-g basis at the table's points ([q][j]); identity when the
/// orders agree (a copy, bit for bit).
std::vector<double> lattice_basis(const Mesh& mesh, const LatticeTable& table)
{
    const int npc = mesh.nodes_per_cell;
    const std::size_t points = table.points.size();
    std::vector<double> values(points * npc, 0.0);
    if (table.order == mesh.degree) {
        for (std::size_t q = 0; q < points; ++q) values[q * npc + q] = 1.0;
        return values;
    }
    const int dim = element_dimension(mesh.cell_type);
    const bool simplex = mesh.cell_type == ElementType::triangle || mesh.cell_type == ElementType::tetrahedron;
    std::vector<double> reference;
    for (const auto& at : table.coordinates)
        for (int i = 0; i < dim; ++i) {
            const double u = static_cast<double>(at[i]) / table.order;
            reference.push_back(simplex ? u : 2.0 * u - 1.0);
        }
    std::vector<double> gradients;
    lagrange_basis(mesh.cell_type, mesh.degree, reference, values, gradients);
    for (double& v : values)
        if (std::abs(v) < 1e-14) v = 0.0;  // exact zeros: other nodes do not move the point
    return values;
}

MeshLattice number_lattice(const Mesh& mesh, int m, const ExecPtr& exec)
{
    MeshLattice lattice;
    const LatticeTable& table = lattice_table(mesh.cell_type, m);
    lattice.table = &table;
    const MeshOnExec input(mesh, exec);
    const long long num_cells = mesh.num_cells(), num_nodes = mesh.num_nodes();
    const int dim = element_dimension(mesh.cell_type);
    const bool quadrilateral_faces = mesh.cell_type == ElementType::hexahedron;
    const int face_points = dim == 3 ? table.face_points(quadrilateral_faces) : 0;
    const ShapeOnExec shape(table, dim == 3 && face_points > 0, exec);

    Array<index_type> vertex_of_node(exec, static_cast<std::size_t>(num_nodes));
    LatticeMeshView view{input.cells, num_cells, mesh.nodes_per_cell, vertex_of_node.data()};
    LatticeEntities& counts = lattice.counts;
    counts.vertices = GPUFEM_DISPATCH(*exec, number_vertices(*exec, input.cells, num_cells,
                                                            mesh.nodes_per_cell,
                                                            element_node_count(mesh.cell_type),
                                                            num_nodes, vertex_of_node.data()));
    checked_index(counts.vertices, "vertices of mesh '" + mesh.source + "'");

    // Edges (when they hold points), then faces (3D, when they hold points).
    const long long edge_slots = m > 1 ? num_cells * shape.view.num_edges : 0;
    EntityNumbers edges(exec, edge_slots, "cell edges of mesh '" + mesh.source + "'");
    if (edge_slots > 0) {
        GPUFEM_DISPATCH(*exec, lattice_edge_keys(*exec, view, shape.view, edges.slot_keys.data()));
        counts.edges = edges.number(exec, 32 + bits_for(counts.vertices));
    }
    counts.cell_edges = edges.of_slot.data();
    const long long face_slots = shape.view.num_faces > 0 ? num_cells * shape.view.num_faces : 0;
    EntityNumbers faces(exec, face_slots, "cell faces of mesh '" + mesh.source + "'");
    if (face_slots > 0) {
        GPUFEM_DISPATCH(*exec, lattice_face_keys(*exec, view, shape.view, counts, faces.slot_keys.data()));
        counts.faces = faces.number(exec, 32 + bits_for(counts.edges));
    }
    counts.cell_faces = faces.of_slot.data();
    counts.face_points = face_points;
    counts.interior_points = table.interior_points;
    // Cells ordered by their lowest vertex (their interior points join that vertex's block).
    const int corners = element_node_count(mesh.cell_type);
    const bool interiors = table.interior_points > 0;
    EntityNumbers ordered_cells(exec, interiors ? num_cells : 0, "cells of mesh '" + mesh.source + "'");
    if (interiors && num_cells > 0) {
        GPUFEM_DISPATCH(*exec, lattice_cell_keys(*exec, view, corners, ordered_cells.slot_keys.data()));
        ordered_cells.number(exec, 32 + bits_for(counts.vertices));
    }
    const auto per_vertex = static_cast<std::size_t>(counts.vertices + 1);
    lattice.first_edge = Array<index_type>(exec, per_vertex);
    lattice.first_face = Array<index_type>(exec, per_vertex);
    lattice.first_cell = Array<index_type>(exec, per_vertex);
    lattice.vertex_start = Array<long long>(exec, per_vertex);
    lattice.points = GPUFEM_DISPATCH(
        *exec, lattice_vertex_blocks(*exec, counts.vertices, edges.keys.data(), counts.edges,
                                     faces.keys.data(), counts.faces,
                                     interiors ? ordered_cells.keys.data() : nullptr, num_cells, m,
                                     face_points, table.interior_points, lattice.first_edge.data(),
                                     lattice.first_face.data(), lattice.first_cell.data(),
                                     lattice.vertex_start.data()));
    counts.vertex_start = lattice.vertex_start.data();
    counts.first_edge = lattice.first_edge.data();
    counts.first_face = lattice.first_face.data();
    counts.first_cell = lattice.first_cell.data();
    counts.cell_position = interiors ? ordered_cells.of_slot.data() : nullptr;
    checked_index(lattice.points, "nodes of order " + std::to_string(m) + " of mesh '" + mesh.source + "'");
    checked_index(num_cells * static_cast<long long>(table.points.size()),
                  "cell node entries of order " + std::to_string(m) + " of mesh '" + mesh.source + "'");

    const Array<double> basis = Array<double>::from_host(exec, lattice_basis(mesh, table));
    lattice.cells = Array<index_type>(exec, static_cast<std::size_t>(num_cells) * table.points.size());
    lattice.coordinates = Array<double>(exec, 3 * static_cast<std::size_t>(lattice.points));
    GPUFEM_DISPATCH(*exec, fill_lattice(*exec, view, corners, shape.view, counts, basis.data(), input.coordinates,
                                        num_nodes, edges.owner.data(), faces.owner.data(),
                                        lattice.cells.data(), lattice.coordinates.data()));
    lattice.vertex_of_node = std::move(vertex_of_node);
    lattice.edge_keys = std::move(edges.keys);
    lattice.face_keys = std::move(faces.keys);
    counts.cell_edges = counts.cell_faces = counts.cell_position = nullptr;  // freed on return
    return lattice;
}

/// The lattice points of order m of every facet of one boundary group (the facet shape's
/// Gmsh order; lexicographic past order 4), numbered as the cells' lattice, on the executor;
/// throws MeshSourceError naming the first facet that is not a face of the cells.
Array<index_type> facet_lattice(const BoundaryFacets& facets, const Mesh& mesh,
                                const MeshLattice& lattice, const ExecPtr& exec,
                                const std::string& where)
{
    const LatticeTable& table = lattice_table(facets.type, lattice.table->order);
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
        const std::string facet = where + ": facet " + std::to_string(failure / 4);
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

/// The new mesh's header: everything but nodes, cells and boundaries.
Mesh derived_mesh(const Mesh& mesh, int degree)
{
    Mesh out;
    out.dim = mesh.dim;
    out.cell_type = mesh.cell_type;
    out.degree = degree;
    out.nodes_per_cell = lagrange_node_count(mesh.cell_type, degree);
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
/// device copy on a CUDA executor); the copy to the host counts in build_times.host_copy.
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
    if (mesh.degree < 1 || mesh.degree > 4 || element_dimension(mesh.cell_type) != mesh.dim ||
        mesh.nodes_per_cell != lagrange_node_count(mesh.cell_type, mesh.degree))
        throw std::invalid_argument(what + ": mesh '" + mesh.source + "' is not a mesh of complete Lagrange cells of order 1..4");
}

/// refine_uniformly, the host arrays written or only sized.
Mesh refine_once(const Mesh& mesh, const ExecPtr& exec, HostArrays host)
{
    check_input(mesh, "refine_uniformly");
    const int g = mesh.degree;
    const RefinementPattern& pattern = refinement_pattern(mesh.cell_type, g);
    MeshLattice lattice = number_lattice(mesh, 2 * g, exec);
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
    GPUFEM_DISPATCH(*exec, fill_children(*exec, lattice.cells.data(), mesh.num_cells(),
                                         static_cast<int>(lattice.table->points.size()),
                                         flat_on_exec.data(), static_cast<int>(pattern.children.size()),
                                         children, nodes_per_child,
                                         diagonals.empty() ? nullptr : diagonals_on_exec.data(),
                                         lattice.coordinates.data(), refined.data()));

    Mesh out = derived_mesh(mesh, g);
    if (g == 1 && !mesh.is_mixed()) {  // pmg's h-level: the parents and their patterns
        auto parents = std::make_shared<RefinementParents>();
        parents->parent_cells = mesh.device && exec->is_cuda()
                                    ? mesh.device->cells.clone_to(exec)
                                    : Array<index_type>::from_host(exec, std::span<const index_type>(
                                                                             mesh.cells.data(), mesh.cells.size()));
        parents->parent_nodes = mesh.num_nodes();
        parents->children = children;
        parents->previous = mesh.refined_from;
        parents->pattern = Array<std::uint8_t>(exec, static_cast<std::size_t>(mesh.num_cells()));
        GPUFEM_DISPATCH(*exec, refinement_choices(*exec, lattice.cells.data(), mesh.num_cells(),
                                                  static_cast<int>(lattice.table->points.size()),
                                                  static_cast<int>(pattern.children.size()),
                                                  diagonals.empty() ? nullptr : diagonals_on_exec.data(),
                                                  lattice.coordinates.data(), parents->pattern.data()));
        out.refined_from = std::move(parents);
    }
    out.cell_group.resize(static_cast<std::size_t>(cells));
    for (std::size_t c = 0; c < mesh.cell_group.size(); ++c)
        std::fill_n(out.cell_group.begin() + static_cast<std::ptrdiff_t>(c * children), children, mesh.cell_group[c]);
    lattice.cells = Array<index_type>();  // before the host copies: less memory at the peak
    store_nodes_and_cells(out, std::move(lattice.coordinates), std::move(refined), exec, host);

    const RefinementPattern& facet_pattern = refinement_pattern(facet_shape(mesh), g);
    const auto& facet_children = facet_pattern.children.front();
    std::vector<int> facet_flat;
    for (const auto& child : facet_children) facet_flat.insert(facet_flat.end(), child.begin(), child.end());
    const Array<int> facet_flat_on_exec = Array<int>::from_host(exec, facet_flat);
    convert_boundaries(mesh, out, g, [&](const BoundaryFacets& facets, const std::string& where) {
        const Array<index_type> points = facet_lattice(facets, mesh, lattice, exec, where);
        const int children = static_cast<int>(facet_children.size());
        const int per_child = static_cast<int>(facet_children.front().size());
        Array<index_type> split(exec, facets.size() * children * per_child);
        GPUFEM_DISPATCH(*exec, fill_children(*exec, points.data(), static_cast<long long>(facets.size()),
                                             static_cast<int>(lattice_table(facets.type, 2 * g).points.size()),
                                             facet_flat_on_exec.data(), 1, children, per_child, nullptr,
                                             nullptr, split.data()));
        return split.to_host();
    });
    return out;
}

}  // namespace

Mesh refine_uniformly(const Mesh& mesh, const ExecPtr& exec)
{
    return refine_once(mesh, exec, HostArrays::written);
}

Mesh with_degree(const Mesh& mesh, int degree, const ExecPtr& exec)
{
    check_input(mesh, "with_degree");
    if (degree < 1 || degree > 4)
        throw std::invalid_argument("with_degree: degree " + std::to_string(degree) + " outside 1..4");
    MeshLattice lattice = number_lattice(mesh, degree, exec);
    Mesh out = derived_mesh(mesh, degree);
    out.cell_group = mesh.cell_group;
    // The vertices keep the first-order mesh's numbering (number_vertices: every node of a
    // first-order mesh is a vertex, numbered in node order), so its parents still hold.
    if (mesh.degree == 1) out.refined_from = mesh.refined_from;
    store_nodes_and_cells(out, std::move(lattice.coordinates), std::move(lattice.cells), exec,
                          HostArrays::written);
    convert_boundaries(mesh, out, degree, [&](const BoundaryFacets& facets, const std::string& where) {
        return facet_lattice(facets, mesh, lattice, exec, where).to_host();
    });
    return out;
}

Mesh refine_and_number(Mesh mesh, int refine, int degree, const ExecPtr& exec)
{
    check_input(mesh, "refine_and_number");
    const bool renumber = mesh.degree != degree || (refine == 0 && degree > 1);
    for (int r = 0; r < refine; ++r)
        mesh = refine_once(mesh, exec, r + 1 == refine && !renumber ? HostArrays::written : HostArrays::sized);
    if (renumber) mesh = with_degree(mesh, degree, exec);
    return mesh;
}

}  // namespace gpufem
