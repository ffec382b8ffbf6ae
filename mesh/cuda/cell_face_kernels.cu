#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "mesh/cell_face_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

__global__ void fill_kernel(long long n, index_type value, index_type* __restrict__ out)
{
    const long long i = thread_index();
    if (i < n) out[i] = value;
}

/// The one non-owner slot of each entity claims it; a second claimant marks the entity.
__global__ void second_slots_kernel(const index_type* __restrict__ of_slot, long long slots,
                                    const index_type* __restrict__ owner, index_type* second,
                                    unsigned long long* __restrict__ first_shared)
{
    const long long s = thread_index();
    if (s >= slots) return;
    const index_type e = of_slot[s];
    if (owner[e] == s) return;
    if (atomicCAS(second + e, -1, static_cast<index_type>(s)) != -1)
        atomicMin(first_shared, static_cast<unsigned long long>(e));
}

__global__ void neighbours_kernel(const index_type* __restrict__ of_slot, long long slots,
                                  const index_type* __restrict__ owner,
                                  const index_type* __restrict__ second, int faces_per_cell,
                                  index_type* __restrict__ neighbour,
                                  int* __restrict__ group_of_slot)
{
    const long long s = thread_index();
    if (s >= slots) return;
    const index_type e = of_slot[s];
    const index_type other = owner[e] == s ? second[e] : owner[e];
    neighbour[s] = other < 0 ? -1 : other / faces_per_cell;
    group_of_slot[s] = -1;
}

__global__ void boundary_faces_kernel(LatticeFacetView facets, const index_type* __restrict__ vertex_of_node,
                                      long long num_nodes, LatticeKeys keys, int dim, int vertex_bits,
                                      const index_type* __restrict__ owner,
                                      const index_type* __restrict__ second, int group,
                                      int* __restrict__ group_of_slot,
                                      unsigned long long* __restrict__ first_failure,
                                      unsigned long long* __restrict__ inside)
{
    const long long f = thread_index();
    if (f >= facets.num_facets) return;
    const long long face = facet_face_number(facets, vertex_of_node, num_nodes, keys, dim, vertex_bits, f);
    if (face < 0) {
        atomicMin(first_failure, static_cast<unsigned long long>(f * 4 - face));
        return;
    }
    if (second[face] >= 0)
        atomicAdd(inside, 1ULL);
    else if (const int before = atomicExch(group_of_slot + owner[face], group); before >= 0 && before != group)
        atomicAdd(inside + 1, 1ULL);  // a facet listed twice is no overlap
}

__global__ void shaped_face_keys_kernel(ShapedCellsView mesh, KernelShapes shapes, int dim, int bits,
                                        std::uint64_t* __restrict__ keys)
{
    const long long t = thread_index();
    if (t >= mesh.num_cells * mesh.faces_per_cell) return;
    keys[t] = shaped_face_key(mesh, shapes, dim, bits, t / mesh.faces_per_cell, static_cast<int>(t % mesh.faces_per_cell));
}

__global__ void face_vertex_keys_kernel(LatticeMeshView mesh, LatticeShapeView shape, int bits,
                                        std::uint64_t* __restrict__ keys)
{
    const long long t = thread_index();
    if (t >= mesh.num_cells * shape.num_faces) return;
    const long long c = t / shape.num_faces;
    const int* local = shape.faces + 4 * (t % shape.num_faces);
    const int n = local[3] >= 0 ? 4 : 3;
    long long g[4];
    for (int k = 0; k < n; ++k) g[k] = cell_vertex(mesh, c, local[k]);
    keys[t] = face_vertex_key(g, n, bits);
}

/// The one value of a device word, read back.
unsigned long long read_word(const Executor& exec, const unsigned long long* word)
{
    unsigned long long value = 0;
    auto stream = stream_of(exec);
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&value, word, sizeof(value), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return value;
}

}  // namespace

long long second_face_slots(const Executor& exec, const index_type* of_slot, long long slots,
                            const index_type* owner, long long count, index_type* second)
{
    auto stream = stream_of(exec);
    if (count > 0) {
        fill_kernel<<<grid_for(count), block_size, 0, stream>>>(count, -1, second);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    if (slots == 0) return -1;
    DeviceBuffer shared(exec, sizeof(unsigned long long));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(shared.as<void>(), 0xff, sizeof(unsigned long long), stream));
    second_slots_kernel<<<grid_for(slots), block_size, 0, stream>>>(of_slot, slots, owner, second,
                                                                    shared.as<unsigned long long>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    const unsigned long long first = read_word(exec, shared.as<unsigned long long>());
    return first == ~0ULL ? -1 : static_cast<long long>(first);
}

void face_neighbours(const Executor& exec, const index_type* of_slot, long long slots,
                     const index_type* owner, const index_type* second, int faces_per_cell,
                     index_type* neighbour, int* group_of_slot)
{
    if (slots == 0) return;
    neighbours_kernel<<<grid_for(slots), block_size, 0, stream_of(exec)>>>(
        of_slot, slots, owner, second, faces_per_cell, neighbour, group_of_slot);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void cell_face_vertex_keys(const Executor& exec, const LatticeMeshView& mesh, const LatticeShapeView& shape,
                           int bits, std::uint64_t* keys)
{
    const long long count = mesh.num_cells * shape.num_faces;
    if (count == 0) return;
    face_vertex_keys_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(
        mesh, shape, bits, keys);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void shaped_face_keys(const Executor& exec, const ShapedCellsView& mesh, const KernelShapes& shapes, int dim, int bits,
                      std::uint64_t* keys)
{
    const long long count = mesh.num_cells * mesh.faces_per_cell;
    if (count == 0) return;
    shaped_face_keys_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(
        mesh, shapes, dim, bits, keys);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

long long mark_boundary_faces(const Executor& exec, const LatticeFacetView& facets,
                              const index_type* vertex_of_node, long long num_nodes,
                              const LatticeKeys& keys, int dim, int vertex_bits, const index_type* owner,
                              const index_type* second, int group, int* group_of_slot,
                              long long& interior, long long& overwritten)
{
    interior = overwritten = 0;
    if (facets.num_facets == 0) return -1;
    auto stream = stream_of(exec);
    DeviceBuffer failure(exec, 3 * sizeof(unsigned long long));  // first failure, two counts
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(failure.as<void>(), 0xff, sizeof(unsigned long long), stream));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(failure.as<unsigned long long>() + 1, 0, 2 * sizeof(unsigned long long), stream));
    boundary_faces_kernel<<<grid_for(facets.num_facets), block_size, 0, stream>>>(
        facets, vertex_of_node, num_nodes, keys, dim, vertex_bits, owner, second, group, group_of_slot,
        failure.as<unsigned long long>(), failure.as<unsigned long long>() + 1);
    GPUFEM_CUDA_CHECK_LAUNCH();
    interior = static_cast<long long>(read_word(exec, failure.as<unsigned long long>() + 1));
    overwritten = static_cast<long long>(read_word(exec, failure.as<unsigned long long>() + 2));
    const unsigned long long first = read_word(exec, failure.as<unsigned long long>());
    return first == ~0ULL ? -1 : static_cast<long long>(first);
}

}  // namespace gpufem::kernels::cuda
