#include "mesh/cell_faces.hpp"

#include <span>
#include <string>
#include <vector>

#include "mesh/cell_description.hpp"
#include "mesh/cell_face_kernels.hpp"
#include "mesh/kernel_shapes.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_entities.hpp"

namespace gpufem {

namespace {

/// The numbered sides (3D faces, 2D edges) of a mesh's cells: each cell's slots, the entity of
/// every slot, and the sorted keys through which boundary facets are found.
struct NumberedSides {
    int faces_per_cell = 0;
    Array<index_type> vertex_of_node;
    int vertex_bits = 0;  ///< 3D faces keyed by vertices (bits each), or 0: through the edges
    EntityNumbers edges, faces;
    long long edge_count = 0;  ///< distinct edges keyed (2D, or 3D through the edges)
    long long face_count = 0;  ///< distinct faces keyed (3D)
    long long padding = 0;     ///< slots beyond a cell's own faces (mixed meshes; each keyed alone)

    NumberedSides(const ExecPtr& exec, const std::string& source)
        : edges(exec, 0, "cell edges of mesh '" + source + "'"), faces(exec, 0, "cell faces of mesh '" + source + "'")
    {
    }
    EntityNumbers& sides(int dim) { return dim == 2 ? edges : faces; }
};

/// The sides of a mesh of one lattice-table type (any order: its cells' corner nodes).
NumberedSides lattice_sides(const Mesh& mesh, const ExecPtr& exec, FaceKeys face_keys)
{
    NumberedSides out(exec, mesh.source);
    const LatticeTable& table = lattice_table(mesh.cell_type, 1);
    const int dim = element_dimension(mesh.cell_type);
    out.faces_per_cell = max_faces_per_cell(mesh);  // the table's edges (2D) or faces (3D)

    const MeshOnExec input(mesh, exec);
    const ShapeOnExec shape(table, dim == 3, exec);
    const long long num_cells = mesh.num_cells(), num_nodes = mesh.num_nodes();
    out.vertex_of_node = Array<index_type>(exec, static_cast<std::size_t>(num_nodes));
    const LatticeMeshView view{input.cells, num_cells, mesh.nodes_per_cell, out.vertex_of_node.data()};
    LatticeEntities counts;
    counts.vertices = GPUFEM_DISPATCH(*exec, number_vertices(*exec, input.cells, num_cells,
                                                            mesh.nodes_per_cell,
                                                            element_node_count(mesh.cell_type),
                                                            num_nodes, out.vertex_of_node.data()));
    // 2D: the faces are the edges. 3D: faces keyed by their three lowest vertices when three
    // vertex numbers fit 64 bits (one sort), else through the numbered edges (two sorts).
    out.vertex_bits = dim == 3 && face_keys == FaceKeys::automatic && 3 * bits_for(counts.vertices) <= 64
                          ? bits_for(counts.vertices)
                          : 0;
    const bool edges_needed = dim == 2 || out.vertex_bits == 0;
    out.edges = EntityNumbers(exec, edges_needed ? num_cells * shape.view.num_edges : 0,
                              "cell edges of mesh '" + mesh.source + "'");
    if (out.edges.slots > 0) {
        GPUFEM_DISPATCH(*exec, lattice_edge_keys(*exec, view, shape.view, out.edges.slot_keys.data()));
        counts.edges = out.edges.number(exec, 32 + bits_for(counts.vertices));
    }
    counts.cell_edges = out.edges.of_slot.data();
    out.faces = EntityNumbers(exec, dim == 3 ? num_cells * shape.view.num_faces : 0,
                              "cell faces of mesh '" + mesh.source + "'");
    if (out.faces.slots > 0) {
        if (out.vertex_bits > 0) {
            GPUFEM_DISPATCH(*exec, cell_face_vertex_keys(*exec, view, shape.view, out.vertex_bits, out.faces.slot_keys.data()));
            counts.faces = out.faces.number(exec, 3 * out.vertex_bits);
        } else {
            GPUFEM_DISPATCH(*exec, lattice_face_keys(*exec, view, shape.view, counts, out.faces.slot_keys.data()));
            counts.faces = out.faces.number(exec, 32 + bits_for(counts.edges));
        }
    }
    out.edge_count = counts.edges;
    out.face_count = counts.faces;
    return out;
}

/// The sides of a first-order mesh walked by shape: every node a vertex; 2D edges by their
/// edge keys, 3D faces by their three lowest vertices (below 2^21 vertices); slots past a
/// cell's own faces get keys of their own (shaped_face_key).
NumberedSides shaped_sides(const Mesh& mesh, const ExecPtr& exec)
{
    NumberedSides out(exec, mesh.source);
    const int dim = mesh.dim;
    const long long num_cells = mesh.num_cells(), num_nodes = mesh.num_nodes();
    out.faces_per_cell = max_faces_per_cell(mesh);
    std::vector<index_type> identity(static_cast<std::size_t>(num_nodes));
    for (long long v = 0; v < num_nodes; ++v) identity[static_cast<std::size_t>(v)] = static_cast<index_type>(v);
    out.vertex_of_node = Array<index_type>::from_host(exec, identity);
    if (dim == 3) {
        out.vertex_bits = bits_for(num_nodes);
        if (3 * out.vertex_bits > 63)
            throw MeshSourceError("mesh '" + mesh.source + "' has " + std::to_string(num_nodes) +
                                  " nodes; the face adjacency of meshes with prisms, pyramids or several "
                                  "cell types (its cells: " + mesh.describe_cells() +
                                  ") handles fewer than 2^21 (2,097,152)");
    }
    const KernelShapes shapes = kernel_shapes();
    for (const std::uint8_t t : mesh.cell_types) out.padding += out.faces_per_cell - shapes.of_type[t].faces;
    const MeshOnExec input(mesh, exec);
    const Array<std::uint8_t> types = Array<std::uint8_t>::from_host(
        exec, std::span<const std::uint8_t>(mesh.cell_types.data(), mesh.cell_types.size()));
    const ShapedCellsView view{input.cells, num_cells, mesh.nodes_per_cell, mesh.is_mixed() ? types.data() : nullptr,
                               mesh.cell_type, out.faces_per_cell};
    EntityNumbers& sides = out.sides(dim);
    sides = EntityNumbers(exec, num_cells * out.faces_per_cell,
                          (dim == 2 ? "cell edges of mesh '" : "cell faces of mesh '") + mesh.source + "'");
    GPUFEM_DISPATCH(*exec, shaped_face_keys(*exec, view, shapes, dim, out.vertex_bits, sides.slot_keys.data()));
    (dim == 2 ? out.edge_count : out.face_count) = sides.number(exec, 64);
    return out;
}

}  // namespace

CellFaces cell_faces(const Mesh& mesh, const ExecPtr& exec, const std::vector<int>* groups, FaceKeys face_keys)
{
    if (mesh.dim != 2 && mesh.dim != 3)
        throw MeshSourceError("mesh '" + mesh.source + "': face adjacency needs a 2D or 3D mesh");
    const bool by_shape = mesh.first_order_only();
    if (by_shape && mesh.degree != 1)
        throw MeshSourceError("mesh '" + mesh.source + "': the face adjacency of meshes with prisms, pyramids "
                              "or several cell types needs first-order cells (its cells: " +
                              mesh.describe_cells() + ", order " + std::to_string(mesh.degree) + ")");
    NumberedSides numbered = by_shape ? shaped_sides(mesh, exec) : lattice_sides(mesh, exec, face_keys);
    const int dim = mesh.dim;
    CellFaces out;
    out.faces_per_cell = numbered.faces_per_cell;
    const long long num_nodes = mesh.num_nodes();
    const int vertex_bits = numbered.vertex_bits;
    Array<index_type>& vertex_of_node = numbered.vertex_of_node;
    EntityNumbers& edges = numbered.edges;
    EntityNumbers& faces = numbered.faces;
    EntityNumbers& sides = numbered.sides(dim);
    const long long count = dim == 2 ? numbered.edge_count : numbered.face_count;
    const long long padding = numbered.padding;

    // Each face's second slot, then every slot's neighbour.
    Array<index_type> second(exec, static_cast<std::size_t>(count));
    const long long shared = GPUFEM_DISPATCH(
        *exec, second_face_slots(*exec, sides.of_slot.data(), sides.slots, sides.owner.data(), count,
                                 second.data()));
    if (shared >= 0) {
        const index_type slot = sides.owner.to_host()[static_cast<std::size_t>(shared)];
        throw MeshSourceError("mesh '" + mesh.source + "' is not conforming: face " +
                              std::to_string(slot % out.faces_per_cell) + " of " +
                              cell_text(mesh, slot / out.faces_per_cell) +
                              " is shared by three or more cells (not a manifold mesh)");
    }
    out.neighbour = Array<index_type>(exec, static_cast<std::size_t>(sides.slots));
    out.group = Array<int>(exec, static_cast<std::size_t>(sides.slots));
    GPUFEM_DISPATCH(*exec, face_neighbours(*exec, sides.of_slot.data(), sides.slots, sides.owner.data(),
                                           second.data(), out.faces_per_cell, out.neighbour.data(),
                                           out.group.data()));
    // No face has three cells: the slots are the faces of one cell plus twice those of two
    // (and the padding slots, one each).
    out.interior_faces = sides.slots - count;
    out.boundary_faces = 2 * count - sides.slots - padding;

    // The boundary groups, in order (a later group wins a face two groups hold).
    out.interior_facets.assign(mesh.boundaries.size(), 0);
    out.shared_faces.assign(mesh.boundaries.size(), 0);
    std::vector<int> order;
    if (groups) {
        order = *groups;
    } else {
        for (std::size_t g = 0; g < mesh.boundaries.size(); ++g) order.push_back(static_cast<int>(g));
    }
    const LatticeKeys keys{edges.keys.data(), numbered.edge_count, faces.keys.data(), numbered.face_count};
    for (const int g : order) {
        const BoundaryFacets& facets = mesh.boundaries.at(static_cast<std::size_t>(g));
        const Array<index_type> on_exec = exec->is_cuda() ? Array<index_type>::from_host(exec, facets.connectivity)
                                                          : Array<index_type>();
        const LatticeFacetView facet_view{exec->is_cuda() ? on_exec.data() : facets.connectivity.data(),
                                          static_cast<long long>(facets.size()), facets.nodes_per_facet,
                                          element_node_count(facets.type), facets.mixed_triangles};
        const long long failure = GPUFEM_DISPATCH(
            *exec, mark_boundary_faces(*exec, facet_view, vertex_of_node.data(), num_nodes, keys, dim, vertex_bits,
                                       sides.owner.data(), second.data(), static_cast<int>(g),
                                       out.group.data(), out.interior_facets[static_cast<std::size_t>(g)],
                                       out.shared_faces[static_cast<std::size_t>(g)]));
        if (failure >= 0)
            throw MeshSourceError("mesh '" + mesh.source + "': boundary group '" + facets.group.name +
                                  "': facet " + std::to_string(failure / 4) + " is no cell's face");
    }
    return out;
}

}  // namespace gpufem
