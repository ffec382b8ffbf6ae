#pragma once
// Internal to mesh/: the kernels that number the lattice points of order m of a mesh from its
// topology (vertices, edges, faces, cell interiors) and refine it uniformly, declared once for
// both backends; the index arithmetic they share is written here once for host and device.
//
// Numbering of the lattice points of order m (the nodes of degree-m Lagrange cells): every
// point belongs to one vertex, the lowest-numbered vertex of the entity it lies inside, and
// each vertex's points are numbered together, in vertex order:
//   vertex v:      start(v), then the points of the edges whose lower vertex is v (edge by
//                  edge; on an edge, counted from its lower vertex), of the faces whose lowest
//                  vertex is v (in the face's canonical frame: its lowest vertex first, then
//                  toward its lower neighbour), and of the cells whose lowest vertex is v.
// Rows of the matrix thus refer to nearby numbers (the vertices' order, Gmsh's or the
// refinement's, is kept). Edges and faces are numbered in increasing key order; the key of an
// edge is (lower vertex, higher vertex), that of a face (its edge from the lowest vertex to
// the lower of that vertex's neighbours in the face, the other neighbour, and whether the face
// is a quadrilateral), so a vertex's edges, and its faces, are consecutive. Shared points get
// one number and one position whichever cell they are seen from.
//
// A mesh of several cell types (or of prisms, whose faces are triangles and quadrilaterals)
// is numbered block by block, one block per cell type, over one set of edges, faces and cells:
// each block's view says where its cells' edge and face slots start and its first cell among
// all blocks' cells, and faces (cells) whose numbers of points differ are counted by offsets.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// The most blocks (cell types) a mesh is numbered in (LatticeKeyPoints).
inline constexpr int lattice_blocks_max = 8;

/// The cells of a mesh as the lattice kernels read them (on the kernels' executor).
struct LatticeMeshView {
    const index_type* cells = nullptr;  ///< nodes_per_cell nodes per cell, Gmsh order
    long long num_cells = 0;
    int nodes_per_cell = 0;
    const index_type* vertex_of_node = nullptr;  ///< vertex number of each corner node, -1
    long long first_cell = 0;      ///< the block's first cell among all blocks' cells
    long long edge_slot_base = 0;  ///< the block's first edge slot (cell, local edge)
    long long face_slot_base = 0;  ///< the block's first face slot (cell, local face)
};

/// The maps that place a block's lattice points: each cell's row of nodes_per_cell nodes of
/// `coordinates` (the mesh's own cells and nodes, or a first-order mesh's curved maps,
/// Mesh::curved_cells).
struct LatticeMapView {
    const index_type* cells = nullptr;
    int nodes_per_cell = 0;
    const double* coordinates = nullptr;
};

/// A LatticeTable on the kernels' executor (see lattice_table.hpp).
struct LatticeShapeView {
    const int* points = nullptr;  ///< 5 ints per point: dim, entity, s, t, interior
    int num_points = 0;
    int order = 1;                ///< m
    int dim = 2;                  ///< the element's dimension
    const int* edges = nullptr;   ///< 2 local vertices per edge
    int num_edges = 0;
    const int* faces = nullptr;   ///< 4 local vertices per face (-1: triangle); 3D cells only
    int num_faces = 0;
    const int* edge_of_pair = nullptr;  ///< [8 a + b]: the local edge joining vertices a, b
};

/// The points inside each face and each cell: a number per entity, or offsets (the points
/// inside the entities before each) where they differ.
struct LatticePointCounts {
    int face_points = 0;      ///< points inside each face (without face_offset)
    int interior_points = 0;  ///< points inside each cell (without cell_offset)
    const long long* face_offset = nullptr;  ///< faces + 1, or null: the points inside the
                                             ///< faces before each face (faces of two kinds)
    const long long* cell_offset = nullptr;  ///< cells + 1, or null: the points inside the
                                             ///< cells before each cell position (cells of
                                             ///< several types)

    /// The points inside faces f0 .. f1 - 1 (in key order).
    GPUFEM_HOST_DEVICE long long in_faces(long long f0, long long f1) const
    {
        return face_offset ? face_offset[f1] - face_offset[f0] : (f1 - f0) * static_cast<long long>(face_points);
    }
    /// The points inside the cells at positions c0 .. c1 - 1.
    GPUFEM_HOST_DEVICE long long in_cells(long long c0, long long c1) const
    {
        return cell_offset ? cell_offset[c1] - cell_offset[c0] : (c1 - c0) * static_cast<long long>(interior_points);
    }
};

/// The global entities of a mesh's lattice and where each vertex's numbers start.
struct LatticeEntities {
    const index_type* cell_edges = nullptr;  ///< num_edges per cell: global edge numbers
    const index_type* cell_faces = nullptr;  ///< num_faces per cell: global face numbers
    const long long* vertex_start = nullptr; ///< V + 1: the first number of each vertex's block
    const index_type* first_edge = nullptr;  ///< V + 1: the first edge whose lower vertex is v
    const index_type* first_face = nullptr;  ///< V + 1: the first face whose lowest vertex is v
    const index_type* first_cell = nullptr;  ///< V + 1: the first cell position (below) of v
    const index_type* cell_position = nullptr;  ///< per cell: its position among the cells
                                                ///< ordered by lowest vertex (null: no interior)
    long long vertices = 0, edges = 0, faces = 0;
    LatticePointCounts inside;  ///< the points inside each face and each cell

    /// The first number after vertex v's own point and its edges' points.
    GPUFEM_HOST_DEVICE long long after_edges(long long v, int m) const
    {
        return vertex_start[v] + 1 + static_cast<long long>(first_edge[v + 1] - first_edge[v]) * (m - 1);
    }
    /// The first number after those and v's faces' points.
    GPUFEM_HOST_DEVICE long long after_faces(long long v, int m) const
    {
        return after_edges(v, m) + inside.in_faces(first_face[v], first_face[v + 1]);
    }
    /// Number of edge e's point t - 1 (0..m-2), e's lower vertex `low`.
    GPUFEM_HOST_DEVICE long long edge_number(long long low, long long e, int point, int m) const
    {
        return vertex_start[low] + 1 + (e - first_edge[low]) * (m - 1) + point;
    }
    /// Number of face f's interior point `local`, f's lowest vertex `low`.
    GPUFEM_HOST_DEVICE long long face_number(long long low, long long f, int local, int m) const
    {
        return after_edges(low, m) + inside.in_faces(first_face[low], f) + local;
    }
    /// Number of the interior point `local` of the cell at `position`, its lowest vertex low.
    GPUFEM_HOST_DEVICE long long interior_number(long long low, long long position, int local, int m) const
    {
        return after_faces(low, m) + inside.in_cells(first_cell[low], position) + local;
    }
};

/// Key of an edge between vertices a and b: lower << 32 | higher.
GPUFEM_HOST_DEVICE inline std::uint64_t edge_key(long long a, long long b)
{
    const std::uint64_t lo = static_cast<std::uint64_t>(a < b ? a : b);
    const std::uint64_t hi = static_cast<std::uint64_t>(a < b ? b : a);
    return lo << 32 | hi;
}

/// Of a face's vertices (global numbers g, 3 or 4 in cyclic order): the position of the
/// lowest, and those of its lower and higher neighbour in the face.
GPUFEM_HOST_DEVICE inline void face_corner(const long long* g, int n, int& low, int& near, int& far)
{
    low = 0;
    for (int k = 1; k < n; ++k)
        if (g[k] < g[low]) low = k;
    const int a = (low + 1) % n, b = (low + n - 1) % n;
    near = g[a] < g[b] ? a : b;
    far = g[a] < g[b] ? b : a;
}

/// Key of a face: the number of its edge from the lowest vertex to the lower neighbour << 32
/// | 2^31 for a quadrilateral | the other neighbour's vertex number (below 2^31).
GPUFEM_HOST_DEVICE inline std::uint64_t face_key(long long edge, long long far_vertex, bool quadrilateral)
{
    return static_cast<std::uint64_t>(edge) << 32 | (quadrilateral ? std::uint64_t(1) << 31 : 0) |
           static_cast<std::uint64_t>(far_vertex);
}

/// Whether a face_key is a quadrilateral's.
GPUFEM_HOST_DEVICE inline bool face_key_is_quadrilateral(std::uint64_t key) { return (key >> 31 & 1) != 0; }

/// The canonical number (0 .. m-2) of the point s steps from vertex a on edge (a, b).
GPUFEM_HOST_DEVICE inline int edge_point(long long a, long long b, int s, int m)
{
    return (a < b ? s : m - s) - 1;
}

/// The canonical number of a triangular face's interior point with weights (m - s - t, s, t)
/// on its vertices g[0..2]: weights ordered by the vertices' numbers, (w_mid, w_high) -> the
/// position in the rows of w_high = 1, 2, ..., each of m - 1 - w_high points.
GPUFEM_HOST_DEVICE inline int triangle_face_point(const long long* g, int s, int t, int m)
{
    const int w[3] = {m - s - t, s, t};
    int low = 0, high = 0;
    for (int k = 1; k < 3; ++k) {
        if (g[k] < g[low]) low = k;
        if (g[k] > g[high]) high = k;
    }
    const int mid = 3 - low - high;
    const int a = w[mid], b = w[high];
    return (b - 1) * (m - 1) - (b - 1) * b / 2 + (a - 1);
}

/// The canonical number of a quadrilateral face's interior point s steps from g[0] toward
/// g[1] and t toward g[3]: coordinates from the lowest vertex, first toward its lower
/// neighbour.
GPUFEM_HOST_DEVICE inline int quadrilateral_face_point(const long long* g, int s, int t, int m)
{
    int low = 0, near = 0, far = 0;
    face_corner(g, 4, low, near, far);
    // Steps from corner k toward its next (k+1) and previous (k+3) corner.
    const int next[4] = {s, t, m - s, m - t};
    const int previous[4] = {t, m - s, m - t, s};
    const bool near_is_next = near == (low + 1) % 4;
    const int a = near_is_next ? next[low] : previous[low];
    const int b = near_is_next ? previous[low] : next[low];
    return (a - 1) + (m - 1) * (b - 1);
}

/// The slot of local edge e of the block's cell c (entities.cell_edges, the edge owners).
GPUFEM_HOST_DEVICE inline long long edge_slot(const LatticeMeshView& mesh, const LatticeShapeView& shape, long long c, int e)
{
    return mesh.edge_slot_base + c * shape.num_edges + e;
}

/// The slot of local face f of the block's cell c.
GPUFEM_HOST_DEVICE inline long long face_slot(const LatticeMeshView& mesh, const LatticeShapeView& shape, long long c, int f)
{
    return mesh.face_slot_base + c * shape.num_faces + f;
}

/// The global vertex number of local node `local` of cell c.
GPUFEM_HOST_DEVICE inline long long cell_vertex(const LatticeMeshView& mesh, long long c, int local)
{
    return mesh.vertex_of_node[mesh.cells[c * mesh.nodes_per_cell + local]];
}

/// The face_key of local face f of cell c (entities.cell_edges set).
GPUFEM_HOST_DEVICE inline std::uint64_t cell_face_key(const LatticeMeshView& mesh,
                                                      const LatticeShapeView& shape,
                                                      const LatticeEntities& entities, long long c,
                                                      int f)
{
    const int* local = shape.faces + 4 * f;
    const int n = local[3] >= 0 ? 4 : 3;
    long long g[4];
    for (int k = 0; k < n; ++k) g[k] = cell_vertex(mesh, c, local[k]);
    int low = 0, near = 0, far = 0;
    face_corner(g, n, low, near, far);
    const int edge = shape.edge_of_pair[8 * local[low] + local[near]];
    return face_key(entities.cell_edges[edge_slot(mesh, shape, c, edge)], g[far], n == 4);
}

/// The lowest of `n` vertex numbers.
GPUFEM_HOST_DEVICE inline long long lowest(const long long* g, int n)
{
    long long low = g[0];
    for (int k = 1; k < n; ++k) low = g[k] < low ? g[k] : low;
    return low;
}

/// The lowest vertex of cell c (its first `corners` nodes).
GPUFEM_HOST_DEVICE inline long long cell_lowest_vertex(const LatticeMeshView& mesh, long long c, int corners)
{
    long long low = cell_vertex(mesh, c, 0);
    for (int k = 1; k < corners; ++k) {
        const long long v = cell_vertex(mesh, c, k);
        low = v < low ? v : low;
    }
    return low;
}

/// The number of lattice point q of cell c (`corners` first-order nodes per cell).
GPUFEM_HOST_DEVICE inline long long lattice_point_number(const LatticeMeshView& mesh,
                                                         const LatticeShapeView& shape,
                                                         const LatticeEntities& entities,
                                                         int corners, long long c, int q)
{
    const int* p = shape.points + 5 * q;
    const int m = shape.order;
    if (p[0] == 0) return entities.vertex_start[cell_vertex(mesh, c, p[1])];
    if (p[0] == shape.dim) {
        const long long low = cell_lowest_vertex(mesh, c, corners);
        return entities.interior_number(low, entities.cell_position[mesh.first_cell + c], p[4], m);
    }
    if (p[0] == 1) {
        const int* e = shape.edges + 2 * p[1];
        const long long a = cell_vertex(mesh, c, e[0]), b = cell_vertex(mesh, c, e[1]);
        return entities.edge_number(a < b ? a : b, entities.cell_edges[edge_slot(mesh, shape, c, p[1])],
                                    edge_point(a, b, p[2], m), m);
    }
    const int* f = shape.faces + 4 * p[1];
    const int n = f[3] >= 0 ? 4 : 3;
    long long g[4] = {-1, -1, -1, -1};
    for (int k = 0; k < n; ++k) g[k] = cell_vertex(mesh, c, f[k]);
    const int local = n == 4 ? quadrilateral_face_point(g, p[2], p[3], m)
                             : triangle_face_point(g, p[2], p[3], m);
    return entities.face_number(lowest(g, n), entities.cell_faces[face_slot(mesh, shape, c, p[1])], local, m);
}

/// The facets of one boundary group as the lattice kernels read them.
struct LatticeFacetView {
    const index_type* facets = nullptr;  ///< nodes_per_facet nodes per facet, Gmsh order
    long long num_facets = 0;
    int nodes_per_facet = 0;
    int corners = 0;                     ///< its first-order nodes (2, 3 or 4)
    /// Triangles among quadrilaterals (corners 4): a facet whose 4th node is -1 is a triangle.
    bool mixed_triangles = false;
};

/// The sorted keys of a mesh's edges and faces: an entity's number is its key's position.
struct LatticeKeys {
    const std::uint64_t* edges = nullptr;
    long long num_edges = 0;
    const std::uint64_t* faces = nullptr;
    long long num_faces = 0;
};

/// The position of the first of sorted `keys` that is at least `key` (n if none).
GPUFEM_HOST_DEVICE inline long long first_key_at_least(const std::uint64_t* keys, long long n,
                                                       std::uint64_t key)
{
    long long lo = 0, hi = n;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// The position of `key` in sorted `keys`, or -1.
GPUFEM_HOST_DEVICE inline long long find_key(const std::uint64_t* keys, long long n, std::uint64_t key)
{
    const long long at = first_key_at_least(keys, n, key);
    return at < n && keys[at] == key ? at : -1;
}

/// What lattice_point_offsets counts per key: faces (a triangle's or a quadrilateral's points,
/// by face_key_is_quadrilateral), or cells (keys lattice_cell_keys: the points of the block
/// holding the cell, blocks starting at block_start among all blocks' cells).
struct LatticeKeyPoints {
    bool faces = true;
    int triangle_points = 0, quadrilateral_points = 0;
    int blocks = 0;
    long long block_start[lattice_blocks_max] = {};
    int block_points[lattice_blocks_max] = {};

    /// The points counted for `key`.
    GPUFEM_HOST_DEVICE int points(std::uint64_t key) const
    {
        if (faces) return face_key_is_quadrilateral(key) ? quadrilateral_points : triangle_points;
        const long long cell = static_cast<long long>(key & 0xffffffffULL);
        int block = 0;
        while (block + 1 < blocks && block_start[block + 1] <= cell) ++block;
        return block_points[block];
    }
};

/// Vertex v's first edge, face and cell: the first of the sorted keys whose lower (lowest)
/// vertex is v or above (faces through their edge; no cell keys: 0).
GPUFEM_HOST_DEVICE inline void vertex_firsts(long long v, const std::uint64_t* edge_keys,
                                             long long edges, const std::uint64_t* face_keys,
                                             long long faces, const std::uint64_t* cell_keys,
                                             long long cells, index_type* first_edge,
                                             index_type* first_face, index_type* first_cell)
{
    const std::uint64_t at = static_cast<std::uint64_t>(v) << 32;
    first_edge[v] = static_cast<index_type>(first_key_at_least(edge_keys, edges, at));
    first_face[v] = static_cast<index_type>(
        first_key_at_least(face_keys, faces, static_cast<std::uint64_t>(first_edge[v]) << 32));
    first_cell[v] = cell_keys ? static_cast<index_type>(first_key_at_least(cell_keys, cells, at)) : 0;
}

/// The size of vertex v's block of numbers (v < V; 0 for v = V).
GPUFEM_HOST_DEVICE inline long long vertex_block_size(long long v, long long vertices, int m,
                                                      const LatticePointCounts& counts,
                                                      const index_type* first_edge,
                                                      const index_type* first_face,
                                                      const index_type* first_cell)
{
    if (v >= vertices) return 0;
    return 1 + static_cast<long long>(first_edge[v + 1] - first_edge[v]) * (m - 1) +
           counts.in_faces(first_face[v], first_face[v + 1]) + counts.in_cells(first_cell[v], first_cell[v + 1]);
}

/// Why a boundary facet is not a face of the cells (facet_point_number's negative results).
enum LatticeFacetFailure : int {
    facet_corner_not_a_vertex = 1,  ///< a corner node is no cell's corner
    facet_edge_not_a_cell_edge = 2,
    facet_not_a_cell_face = 3,
};

/// The corners of facet f: facets.corners, or 3 for a triangle among quadrilaterals.
GPUFEM_HOST_DEVICE inline int facet_corner_count(const LatticeFacetView& facets, long long f)
{
    return facets.mixed_triangles && facets.facets[f * facets.nodes_per_facet + 3] < 0 ? 3 : facets.corners;
}

/// The vertex numbers g of facet f's corners; false when a corner is no cell's corner.
GPUFEM_HOST_DEVICE inline bool facet_vertices(const LatticeFacetView& facets, const index_type* vertex_of_node,
                                              long long num_nodes, long long f, long long* g)
{
    const index_type* nodes = facets.facets + f * facets.nodes_per_facet;
    const int corners = facet_corner_count(facets, f);
    for (int i = 0; i < corners; ++i) {
        if (nodes[i] < 0 || nodes[i] >= num_nodes || vertex_of_node[nodes[i]] < 0) return false;
        g[i] = vertex_of_node[nodes[i]];
    }
    return true;
}

/// The number of lattice point q (of the facet shape's table `shape`) of facet f, numbered
/// as the cells' lattice; or minus a LatticeFacetFailure.
GPUFEM_HOST_DEVICE inline long long facet_point_number(const LatticeFacetView& facets,
                                                       const index_type* vertex_of_node,
                                                       long long num_nodes,
                                                       const LatticeShapeView& shape,
                                                       const LatticeEntities& entities,
                                                       const LatticeKeys& keys, long long f, int q)
{
    long long g[4] = {-1, -1, -1, -1};
    if (!facet_vertices(facets, vertex_of_node, num_nodes, f, g)) return -facet_corner_not_a_vertex;
    const int* p = shape.points + 5 * q;
    const int m = shape.order;
    if (p[0] == 0) return entities.vertex_start[g[p[1]]];
    if (p[0] == 1) {
        const long long a = g[shape.edges[2 * p[1]]], b = g[shape.edges[2 * p[1] + 1]];
        const long long e = find_key(keys.edges, keys.num_edges, edge_key(a, b));
        if (e < 0) return -facet_edge_not_a_cell_edge;
        return entities.edge_number(a < b ? a : b, e, edge_point(a, b, p[2], m), m);
    }
    int low = 0, near = 0, far = 0;
    face_corner(g, facets.corners, low, near, far);
    const long long e = find_key(keys.edges, keys.num_edges, edge_key(g[low], g[near]));
    if (e < 0) return -facet_edge_not_a_cell_edge;
    const long long face = find_key(keys.faces, keys.num_faces, face_key(e, g[far], facets.corners == 4));
    if (face < 0) return -facet_not_a_cell_face;
    const int local = facets.corners == 4 ? quadrilateral_face_point(g, p[2], p[3], m)
                                          : triangle_face_point(g, p[2], p[3], m);
    return entities.face_number(lowest(g, facets.corners), face, local, m);
}

/// Whether cell c writes the position of its lattice point q: points inside the cell always,
/// edge and face points when c is their entity's first slot (owner), vertices never (they
/// are copied from their nodes).
GPUFEM_HOST_DEVICE inline bool writes_lattice_point(const LatticeMeshView& mesh,
                                                    const LatticeShapeView& shape,
                                                    const LatticeEntities& entities,
                                                    const index_type* edge_owner,
                                                    const index_type* face_owner, long long c, int q)
{
    const int* p = shape.points + 5 * q;
    if (p[0] == shape.dim) return true;
    if (p[0] == 1) {
        const long long slot = edge_slot(mesh, shape, c, p[1]);
        return edge_owner[entities.cell_edges[slot]] == slot;
    }
    if (p[0] == 2) {
        const long long slot = face_slot(mesh, shape, c, p[1]);
        return face_owner[entities.cell_faces[slot]] == slot;
    }
    return false;
}

/// The refinement pattern of a cell: with diagonals (2 lattice points per pattern), the
/// pattern whose diagonal is shortest (the first on ties), else 0.
GPUFEM_HOST_DEVICE inline int refinement_choice(const index_type* points, int patterns,
                                                const int* diagonals, const double* coordinates)
{
    if (!diagonals) return 0;
    int chosen = 0;
    double shortest = 0.0;
    for (int p = 0; p < patterns; ++p) {
        const double* a = coordinates + 3 * static_cast<long long>(points[diagonals[2 * p]]);
        const double* b = coordinates + 3 * static_cast<long long>(points[diagonals[2 * p + 1]]);
        double length = 0.0;
        for (int axis = 0; axis < 3; ++axis) length += (a[axis] - b[axis]) * (a[axis] - b[axis]);
        if (p == 0 || length < shortest) {
            shortest = length;
            chosen = p;
        }
    }
    return chosen;
}

#define GPUFEM_KERNEL_LIST "mesh/lattice_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
