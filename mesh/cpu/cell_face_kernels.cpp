#include <atomic>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/cell_face_kernels.hpp"

namespace gpufem::kernels::cpu {

long long second_face_slots(const Executor&, const index_type* of_slot, long long slots,
                            const index_type* owner, long long count, index_type* second)
{
    for (long long e = 0; e < count; ++e) second[e] = -1;
    long long shared_by_three = -1;
    for (long long s = 0; s < slots; ++s) {
        const index_type e = of_slot[s];
        if (owner[e] == s) continue;
        if (second[e] >= 0 && shared_by_three < 0) shared_by_three = e;
        second[e] = static_cast<index_type>(s);
    }
    return shared_by_three;
}

void face_neighbours(const Executor&, const index_type* of_slot, long long slots,
                     const index_type* owner, const index_type* second, int faces_per_cell,
                     index_type* neighbour, int* group_of_slot)
{
    chunked_for(slots, [&](long long s) {
        const index_type e = of_slot[s];
        const index_type other = owner[e] == s ? second[e] : owner[e];
        neighbour[s] = other < 0 ? -1 : other / faces_per_cell;
        group_of_slot[s] = -1;
    });
}

void cell_face_vertex_keys(const Executor&, const LatticeMeshView& mesh, const LatticeShapeView& shape,
                           int bits, std::uint64_t* keys)
{
    chunked_for(mesh.num_cells, [&](long long c) {
        for (int f = 0; f < shape.num_faces; ++f) {
            const int* local = shape.faces + 4 * f;
            const int n = local[3] >= 0 ? 4 : 3;
            long long g[4];
            for (int k = 0; k < n; ++k) g[k] = cell_vertex(mesh, c, local[k]);
            keys[c * shape.num_faces + f] = face_vertex_key(g, n, bits);
        }
    });
}

void shaped_face_keys(const Executor&, const ShapedCellsView& mesh, const KernelShapes& shapes, int dim, int bits,
                      std::uint64_t* keys)
{
    chunked_for(mesh.num_cells, [&](long long c) {
        for (int f = 0; f < mesh.faces_per_cell; ++f)
            keys[c * mesh.faces_per_cell + f] = shaped_face_key(mesh, shapes, dim, bits, c, f);
    });
}

long long mark_boundary_faces(const Executor&, const LatticeFacetView& facets,
                              const index_type* vertex_of_node, long long num_nodes,
                              const LatticeKeys& keys, int dim, int vertex_bits, const index_type* owner,
                              const index_type* second, int group, int* group_of_slot,
                              long long& interior, long long& overwritten)
{
    std::atomic<long long> first_failure{-1}, inside{0}, again{0};
    chunked_for(facets.num_facets, [&](long long f) {
        const long long face = facet_face_number(facets, vertex_of_node, num_nodes, keys, dim, vertex_bits, f);
        if (face < 0) {
            long long seen = first_failure.load();
            const long long code = f * 4 - face;
            while ((seen < 0 || code < seen) && !first_failure.compare_exchange_weak(seen, code)) {
            }
            return;
        }
        if (second[face] >= 0) {
            inside.fetch_add(1, std::memory_order_relaxed);
        } else if (const int before = std::atomic_ref<int>(group_of_slot[owner[face]]).exchange(group);
                   before >= 0 && before != group) {  // a facet listed twice is no overlap
            again.fetch_add(1, std::memory_order_relaxed);
        }
    });
    interior = inside.load();
    overwritten = again.load();
    return first_failure.load();
}

}  // namespace gpufem::kernels::cpu
