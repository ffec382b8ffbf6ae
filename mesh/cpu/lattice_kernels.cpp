#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include <parallel/algorithm>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/lattice_kernels.hpp"

namespace gpufem::kernels::cpu {

long long number_vertices(const Executor&, const index_type* cells, long long num_cells,
                          int nodes_per_cell, int corners, long long num_nodes,
                          index_type* vertex_of_node)
{
    std::fill(vertex_of_node, vertex_of_node + num_nodes, -1);
    chunked_for(num_cells, [&](long long c) {
        for (int k = 0; k < corners; ++k) {  // cells share corners: marked atomically
            const index_type node = cells[c * nodes_per_cell + k];
            if (node >= 0)  // a mixed mesh's rows end with -1
                std::atomic_ref<index_type>(vertex_of_node[node]).store(0, std::memory_order_relaxed);
        }
    });
    long long count = 0;
    for (long long n = 0; n < num_nodes; ++n)
        if (vertex_of_node[n] == 0) vertex_of_node[n] = static_cast<index_type>(count++);
    return count;
}

void lattice_edge_keys(const Executor&, const LatticeMeshView& mesh, const LatticeShapeView& shape,
                       std::uint64_t* keys)
{
    chunked_for(mesh.num_cells, [&](long long c) {
        for (int e = 0; e < shape.num_edges; ++e)
            keys[edge_slot(mesh, shape, c, e)] = edge_key(cell_vertex(mesh, c, shape.edges[2 * e]),
                                                     cell_vertex(mesh, c, shape.edges[2 * e + 1]));
    });
}

void lattice_face_keys(const Executor&, const LatticeMeshView& mesh, const LatticeShapeView& shape,
                       const LatticeEntities& entities, std::uint64_t* keys)
{
    chunked_for(mesh.num_cells, [&](long long c) {
        for (int f = 0; f < shape.num_faces; ++f)
            keys[face_slot(mesh, shape, c, f)] = cell_face_key(mesh, shape, entities, c, f);
    });
}

void lattice_cell_keys(const Executor&, const LatticeMeshView& mesh, int corners, std::uint64_t* keys)
{
    chunked_for(mesh.num_cells, [&](long long c) {
        keys[mesh.first_cell + c] = static_cast<std::uint64_t>(cell_lowest_vertex(mesh, c, corners)) << 32 |
                                    static_cast<std::uint64_t>(mesh.first_cell + c);
    });
}

long long lattice_vertex_blocks(const Executor&, long long vertices, const std::uint64_t* edge_keys,
                                long long edges, const std::uint64_t* face_keys, long long faces,
                                const std::uint64_t* cell_keys, long long cells, int m,
                                const LatticePointCounts& counts, index_type* first_edge,
                                index_type* first_face, index_type* first_cell,
                                long long* vertex_start)
{
    chunked_for(vertices + 1, [&](long long v) {
        vertex_firsts(v, edge_keys, edges, face_keys, faces, cell_keys, cells, first_edge,
                      first_face, first_cell);
    });
    long long total = 0;
    for (long long v = 0; v <= vertices; ++v) {
        vertex_start[v] = total;
        total += vertex_block_size(v, vertices, m, counts, first_edge, first_face, first_cell);
    }
    return total;
}

void lattice_point_offsets(const Executor&, const std::uint64_t* keys, long long count,
                           const LatticeKeyPoints& per_key, long long* offsets)
{
    long long total = 0;
    for (long long i = 0; i < count; ++i) {
        offsets[i] = total;
        total += per_key.points(keys[i]);
    }
    offsets[count] = total;
}

long long number_entities(const Executor&, const std::uint64_t* keys, long long count, int,
                          index_type* entity_of_slot, std::uint64_t* unique_keys, index_type* owner)
{
    std::vector<std::pair<std::uint64_t, index_type>> sorted(static_cast<std::size_t>(count));
    chunked_for(count, [&](long long i) { sorted[i] = {keys[i], static_cast<index_type>(i)}; });
    // The pairs are distinct, so the order (and every number below) is the same for any
    // thread count.
    __gnu_parallel::sort(sorted.begin(), sorted.end());
    long long distinct = 0;
    for (long long i = 0; i < count; ++i) {
        if (i == 0 || sorted[i].first != sorted[i - 1].first) {
            unique_keys[distinct] = sorted[i].first;
            owner[distinct] = sorted[i].second;
            ++distinct;
        }
        entity_of_slot[sorted[i].second] = static_cast<index_type>(distinct - 1);
    }
    return distinct;
}

void fill_lattice(const Executor&, const LatticeMeshView& mesh, int corners, const LatticeShapeView& shape,
                  const LatticeEntities& entities, const double* basis, const LatticeMapView& map,
                  const double* node_coordinates, long long num_nodes,
                  const index_type* edge_owner, const index_type* face_owner,
                  index_type* lattice_cells, double* coordinates)
{
    chunked_for(num_nodes, [&](long long n) {
        const index_type v = mesh.vertex_of_node[n];
        if (v < 0) return;
        const long long at = entities.vertex_start[v];
        for (int axis = 0; axis < 3; ++axis) coordinates[3 * at + axis] = node_coordinates[3 * n + axis];
    });
    const int npc = map.nodes_per_cell;
    chunked_for(mesh.num_cells, [&](long long c) {
        const index_type* nodes = map.cells + c * npc;
        for (int q = 0; q < shape.num_points; ++q) {
            const long long number = lattice_point_number(mesh, shape, entities, corners, c, q);
            lattice_cells[c * shape.num_points + q] = static_cast<index_type>(number);
            if (!writes_lattice_point(mesh, shape, entities, edge_owner, face_owner, c, q)) continue;
            const double* weights = basis + static_cast<long long>(q) * npc;
            for (int axis = 0; axis < 3; ++axis) {
                double x = 0.0;
                for (int j = 0; j < npc; ++j) x += weights[j] * map.coordinates[3 * nodes[j] + axis];
                coordinates[3 * number + axis] = x;
            }
        }
    });
}

long long fill_facet_lattice(const Executor&, const LatticeFacetView& facets,
                             const index_type* vertex_of_node, long long num_nodes,
                             const LatticeShapeView& shape, const LatticeEntities& entities,
                             const LatticeKeys& keys, index_type* out)
{
    std::atomic<long long> first{-1};
    chunked_for(facets.num_facets, [&](long long f) {
        for (int q = 0; q < shape.num_points; ++q) {
            const long long number =
                facet_point_number(facets, vertex_of_node, num_nodes, shape, entities, keys, f, q);
            out[f * shape.num_points + q] = static_cast<index_type>(number);
            if (number >= 0) continue;
            // The lowest failing facet, whatever the threads' order.
            const long long code = f * 4 - number;
            long long seen = first.load();
            while ((seen < 0 || code < seen) && !first.compare_exchange_weak(seen, code)) {
            }
            return;
        }
    });
    return first.load();
}

void fill_children(const Executor&, const index_type* lattice_cells, long long num_cells,
                   int points_per_cell, const int* pattern, int patterns, int children,
                   int nodes_per_child, const int* diagonals, const double* coordinates,
                   const std::uint8_t* chosen_of, index_type* cells)
{
    chunked_for(num_cells, [&](long long c) {
        const index_type* points = lattice_cells + c * points_per_cell;
        const int chosen = chosen_of ? chosen_of[c] : refinement_choice(points, patterns, diagonals, coordinates);
        const int* nodes = pattern + static_cast<long long>(chosen) * children * nodes_per_child;
        index_type* out = cells + c * children * nodes_per_child;
        for (int k = 0; k < children * nodes_per_child; ++k) out[k] = points[nodes[k]];
    });
}

void refinement_choices(const Executor&, const index_type* lattice_cells, long long num_cells, int points_per_cell,
                        int patterns, const int* diagonals, const double* coordinates, std::uint8_t* choice)
{
    chunked_for(num_cells, [&](long long c) {
        choice[c] = static_cast<std::uint8_t>(
            refinement_choice(lattice_cells + c * points_per_cell, patterns, diagonals, coordinates));
    });
}

void copy_rows(const Executor&, const index_type* from, int from_stride, const index_type* from_rows,
               index_type* to, int to_stride, const index_type* to_rows, long long rows, int width)
{
    chunked_for(rows, [&](long long i) {
        const index_type* in = from + (from_rows ? from_rows[i] : i) * static_cast<long long>(from_stride);
        index_type* out = to + (to_rows ? to_rows[i] : i) * static_cast<long long>(to_stride);
        for (int q = 0; q < to_stride; ++q) out[q] = q < width ? in[q] : -1;
    });
}

void refinement_children(const Executor&, long long num_cells, int children, const std::uint8_t* pattern,
                         index_type* parent, std::uint8_t* child)
{
    chunked_for(num_cells, [&](long long c) {
        const long long q = c / children;
        parent[c] = static_cast<index_type>(q);
        child[c] = static_cast<std::uint8_t>(pattern[q] * children + c % children);
    });
}

}  // namespace gpufem::kernels::cpu
