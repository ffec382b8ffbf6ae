#pragma once
// Internal to mesh/: the kernels of cell_faces (cell_faces.hpp), declared once for both
// backends, and the facet-to-face lookup they share.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "mesh/kernel_shapes.hpp"
#include "mesh/lattice_kernels.hpp"

namespace gpufem {

/// Key of a 3D face from its corners' vertex numbers (3 or 4): its three lowest, increasing,
/// `bits` bits each (3 * bits <= 64). Three corners determine a face of a conforming mesh.
GPUFEM_HOST_DEVICE inline std::uint64_t face_vertex_key(const long long* g, int n, int bits)
{
    long long a = g[0], b = g[1], c = g[2];
    const auto order = [](long long& x, long long& y) {
        if (y < x) {
            const long long t = x;
            x = y;
            y = t;
        }
    };
    order(a, b);
    order(b, c);
    order(a, b);
    if (n == 4 && g[3] < c) {
        c = g[3];
        order(b, c);
        order(a, b);
    }
    return (static_cast<std::uint64_t>(a) << (2 * bits)) | (static_cast<std::uint64_t>(b) << bits) |
           static_cast<std::uint64_t>(c);
}

/// The cells of a first-order mesh walked by shape (several cell types, or prisms and
/// pyramids, which have no lattice table): every node is a corner (vertex number = node).
struct ShapedCellsView {
    const index_type* cells = nullptr;  ///< nodes_per_cell per cell, -1 after a cell's corners
    long long num_cells = 0;
    int nodes_per_cell = 0;
    const std::uint8_t* types = nullptr;  ///< each cell's ElementType number, or null: all `type`
    ElementType type = ElementType::triangle;
    int faces_per_cell = 0;  ///< slots per cell: the most faces of any cell
};

/// Key of slot f of cell c of a shaped mesh: 2D the edge_key of the edge, 3D the
/// face_vertex_key of the face (bits per vertex); past the cell's own faces a key of its own
/// (bit 63 and the slot: above every real key, never shared).
GPUFEM_HOST_DEVICE inline std::uint64_t shaped_face_key(const ShapedCellsView& mesh, const KernelShapes& shapes,
                                                        int dim, int bits, long long c, int f)
{
    const KernelShape& shape = shape_of_cell(shapes, mesh.types, mesh.type, c);
    if (f >= shape.faces)
        return (std::uint64_t{1} << 63) | static_cast<std::uint64_t>(c * mesh.faces_per_cell + f);
    const index_type* nodes = mesh.cells + c * mesh.nodes_per_cell;
    const int* local = shape.face_corners[f];
    if (dim == 2) return edge_key(nodes[local[0]], nodes[local[1]]);
    const int n = local[3] >= 0 ? 4 : 3;
    long long g[4];
    for (int k = 0; k < n; ++k) g[k] = nodes[local[k]];
    return face_vertex_key(g, n, bits);
}

/// The number of the face (dim 3) or edge (dim 2) that boundary facet f is, through the
/// sorted entity keys (3D faces keyed by face_vertex_key when vertex_bits > 0, else by
/// face_key); or minus a LatticeFacetFailure.
GPUFEM_HOST_DEVICE inline long long facet_face_number(const LatticeFacetView& facets,
                                                      const index_type* vertex_of_node,
                                                      long long num_nodes, const LatticeKeys& keys,
                                                      int dim, int vertex_bits, long long f)
{
    long long g[4] = {-1, -1, -1, -1};
    if (!facet_vertices(facets, vertex_of_node, num_nodes, f, g)) return -facet_corner_not_a_vertex;
    if (dim == 2) {
        const long long e = find_key(keys.edges, keys.num_edges, edge_key(g[0], g[1]));
        return e < 0 ? -facet_edge_not_a_cell_edge : e;
    }
    if (vertex_bits > 0) {
        const long long face = find_key(keys.faces, keys.num_faces,
                                        face_vertex_key(g, facet_corner_count(facets, f), vertex_bits));
        return face < 0 ? -facet_not_a_cell_face : face;
    }
    int low = 0, near = 0, far = 0;
    face_corner(g, facets.corners, low, near, far);
    const long long e = find_key(keys.edges, keys.num_edges, edge_key(g[low], g[near]));
    if (e < 0) return -facet_edge_not_a_cell_edge;
    const long long face = find_key(keys.faces, keys.num_faces, face_key(e, g[far], facets.corners == 4));
    return face < 0 ? -facet_not_a_cell_face : face;
}

#define GPUFEM_KERNEL_LIST "mesh/cell_face_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
