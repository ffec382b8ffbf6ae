#include "mesh/cell_faces.hpp"

#include <string>

#include "mesh/cell_face_kernels.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_entities.hpp"

namespace gpufem {

CellFaces cell_faces(const Mesh& mesh, const ExecPtr& exec, const std::vector<int>* groups, FaceKeys face_keys)
{
    if (mesh.dim != 2 && mesh.dim != 3)
        throw MeshSourceError("mesh '" + mesh.source + "': face adjacency needs a 2D or 3D mesh");
    const LatticeTable& table = lattice_table(mesh.cell_type, 1);
    const int dim = element_dimension(mesh.cell_type);
    CellFaces out;
    if (dim == 2) {
        for (const auto& edge : table.edges) out.local_faces.push_back({edge[0], edge[1], -1, -1});
    } else {
        out.local_faces = table.faces;
    }
    out.faces_per_cell = static_cast<int>(out.local_faces.size());

    const MeshOnExec input(mesh, exec);
    const ShapeOnExec shape(table, dim == 3, exec);
    const long long num_cells = mesh.num_cells(), num_nodes = mesh.num_nodes();
    Array<index_type> vertex_of_node(exec, static_cast<std::size_t>(num_nodes));
    const LatticeMeshView view{input.cells, num_cells, mesh.nodes_per_cell, vertex_of_node.data()};
    LatticeEntities counts;
    counts.vertices = GPUFEM_DISPATCH(*exec, number_vertices(*exec, input.cells, num_cells,
                                                            mesh.nodes_per_cell,
                                                            element_node_count(mesh.cell_type),
                                                            num_nodes, vertex_of_node.data()));
    // 2D: the faces are the edges. 3D: faces keyed by their three lowest vertices when three
    // vertex numbers fit 64 bits (one sort), else through the numbered edges (two sorts).
    const int vertex_bits = dim == 3 && face_keys == FaceKeys::automatic && 3 * bits_for(counts.vertices) <= 64
                                ? bits_for(counts.vertices)
                                : 0;
    const bool edges_needed = dim == 2 || vertex_bits == 0;
    EntityNumbers edges(exec, edges_needed ? num_cells * shape.view.num_edges : 0,
                        "cell edges of mesh '" + mesh.source + "'");
    if (edges.slots > 0) {
        GPUFEM_DISPATCH(*exec, lattice_edge_keys(*exec, view, shape.view, edges.slot_keys.data()));
        counts.edges = edges.number(exec, 32 + bits_for(counts.vertices));
    }
    counts.cell_edges = edges.of_slot.data();
    EntityNumbers faces(exec, dim == 3 ? num_cells * shape.view.num_faces : 0,
                        "cell faces of mesh '" + mesh.source + "'");
    if (faces.slots > 0) {
        if (vertex_bits > 0) {
            GPUFEM_DISPATCH(*exec, cell_face_vertex_keys(*exec, view, shape.view, vertex_bits, faces.slot_keys.data()));
            counts.faces = faces.number(exec, 3 * vertex_bits);
        } else {
            GPUFEM_DISPATCH(*exec, lattice_face_keys(*exec, view, shape.view, counts, faces.slot_keys.data()));
            counts.faces = faces.number(exec, 32 + bits_for(counts.edges));
        }
    }
    EntityNumbers& sides = dim == 2 ? edges : faces;
    const long long count = dim == 2 ? counts.edges : counts.faces;

    // Each face's second slot, then every slot's neighbour.
    Array<index_type> second(exec, static_cast<std::size_t>(count));
    const long long shared = GPUFEM_DISPATCH(
        *exec, second_face_slots(*exec, sides.of_slot.data(), sides.slots, sides.owner.data(), count,
                                 second.data()));
    if (shared >= 0) {
        const index_type slot = sides.owner.to_host()[static_cast<std::size_t>(shared)];
        throw MeshSourceError("mesh '" + mesh.source + "': face " +
                              std::to_string(slot % out.faces_per_cell) + " of cell " +
                              std::to_string(slot / out.faces_per_cell) +
                              " is shared by three or more cells (not a manifold mesh)");
    }
    out.neighbour = Array<index_type>(exec, static_cast<std::size_t>(sides.slots));
    out.group = Array<int>(exec, static_cast<std::size_t>(sides.slots));
    GPUFEM_DISPATCH(*exec, face_neighbours(*exec, sides.of_slot.data(), sides.slots, sides.owner.data(),
                                           second.data(), out.faces_per_cell, out.neighbour.data(),
                                           out.group.data()));
    // No face has three cells: the slots are the faces of one cell plus twice those of two.
    out.interior_faces = sides.slots - count;
    out.boundary_faces = 2 * count - sides.slots;

    // The boundary groups, in order (a later group wins a face two groups hold).
    out.interior_facets.assign(mesh.boundaries.size(), 0);
    out.shared_faces.assign(mesh.boundaries.size(), 0);
    std::vector<int> order;
    if (groups) {
        order = *groups;
    } else {
        for (std::size_t g = 0; g < mesh.boundaries.size(); ++g) order.push_back(static_cast<int>(g));
    }
    const LatticeKeys keys{edges.keys.data(), counts.edges, faces.keys.data(), counts.faces};
    for (const int g : order) {
        const BoundaryFacets& facets = mesh.boundaries.at(static_cast<std::size_t>(g));
        const Array<index_type> on_exec = exec->is_cuda() ? Array<index_type>::from_host(exec, facets.connectivity)
                                                          : Array<index_type>();
        const LatticeFacetView facet_view{exec->is_cuda() ? on_exec.data() : facets.connectivity.data(),
                                          static_cast<long long>(facets.size()), facets.nodes_per_facet,
                                          element_node_count(facets.type)};
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
