// Compiled with -fmad=false (mesh/CMakeLists.txt): the coordinates of the lattice points are
// the same sums as the CPU's, rounded the same, so both backends make the same mesh.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "mesh/lattice_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

__global__ void mark_corners_kernel(const index_type* __restrict__ cells, long long num_cells,
                                    int nodes_per_cell, int corners, int* __restrict__ flags)
{
    const long long t = thread_index();
    if (t >= num_cells * corners) return;
    const index_type node = cells[(t / corners) * nodes_per_cell + t % corners];
    if (node >= 0) flags[node] = 1;  // same value: no race; a mixed mesh's rows end with -1
}

__global__ void vertex_numbers_kernel(long long num_nodes, const int* __restrict__ flags,
                                      const index_type* __restrict__ scanned,
                                      index_type* __restrict__ vertex_of_node)
{
    const long long n = thread_index();
    if (n < num_nodes) vertex_of_node[n] = flags[n] ? scanned[n] : -1;
}

__global__ void edge_keys_kernel(LatticeMeshView mesh, LatticeShapeView shape,
                                 std::uint64_t* __restrict__ keys)
{
    const long long t = thread_index();
    if (t >= mesh.num_cells * shape.num_edges) return;
    const long long c = t / shape.num_edges;
    const int e = static_cast<int>(t % shape.num_edges);
    keys[mesh.edge_slot_base + t] = edge_key(cell_vertex(mesh, c, shape.edges[2 * e]),
                                             cell_vertex(mesh, c, shape.edges[2 * e + 1]));
}

__global__ void face_keys_kernel(LatticeMeshView mesh, LatticeShapeView shape,
                                 LatticeEntities entities, std::uint64_t* __restrict__ keys)
{
    const long long t = thread_index();
    if (t >= mesh.num_cells * shape.num_faces) return;
    keys[mesh.face_slot_base + t] = cell_face_key(mesh, shape, entities, t / shape.num_faces,
                                                  static_cast<int>(t % shape.num_faces));
}

__global__ void cell_keys_kernel(LatticeMeshView mesh, int corners, std::uint64_t* __restrict__ keys)
{
    const long long c = thread_index();
    if (c < mesh.num_cells)
        keys[mesh.first_cell + c] = static_cast<std::uint64_t>(cell_lowest_vertex(mesh, c, corners)) << 32 |
                                    static_cast<std::uint64_t>(mesh.first_cell + c);
}

__global__ void vertex_firsts_kernel(long long vertices, const std::uint64_t* __restrict__ edge_keys,
                                     long long edges, const std::uint64_t* __restrict__ face_keys,
                                     long long faces, const std::uint64_t* __restrict__ cell_keys,
                                     long long cells, index_type* __restrict__ first_edge,
                                     index_type* __restrict__ first_face,
                                     index_type* __restrict__ first_cell)
{
    const long long v = thread_index();
    if (v <= vertices)
        vertex_firsts(v, edge_keys, edges, face_keys, faces, cell_keys, cells, first_edge,
                      first_face, first_cell);
}

__global__ void vertex_sizes_kernel(long long vertices, int m, LatticePointCounts counts,
                                    const index_type* __restrict__ first_edge,
                                    const index_type* __restrict__ first_face,
                                    const index_type* __restrict__ first_cell,
                                    long long* __restrict__ sizes)
{
    const long long v = thread_index();
    if (v <= vertices)
        sizes[v] = vertex_block_size(v, vertices, m, counts, first_edge, first_face, first_cell);
}

__global__ void key_points_kernel(const std::uint64_t* __restrict__ keys, long long count,
                                  LatticeKeyPoints per_key, long long* __restrict__ points)
{
    const long long i = thread_index();
    if (i <= count) points[i] = i < count ? per_key.points(keys[i]) : 0;
}

__global__ void iota_kernel(long long count, index_type* __restrict__ slots)
{
    const long long i = thread_index();
    if (i < count) slots[i] = static_cast<index_type>(i);
}

/// flags[i] = 1 where sorted key i differs from the one before.
__global__ void first_of_key_kernel(long long count, const std::uint64_t* __restrict__ sorted,
                                    index_type* __restrict__ flags)
{
    const long long i = thread_index();
    if (i < count) flags[i] = i == 0 || sorted[i] != sorted[i - 1];
}

/// From the inclusive sums of the flags: the entity of every slot, and of every entity its
/// key and first slot (the radix sort is stable, so the first is the lowest slot).
__global__ void scatter_entities_kernel(long long count, const std::uint64_t* __restrict__ sorted,
                                        const index_type* __restrict__ slots,
                                        const index_type* __restrict__ flags,
                                        const index_type* __restrict__ ids,
                                        index_type* __restrict__ entity_of_slot,
                                        std::uint64_t* __restrict__ unique_keys,
                                        index_type* __restrict__ owner)
{
    const long long i = thread_index();
    if (i >= count) return;
    const index_type id = ids[i] - 1;
    entity_of_slot[slots[i]] = id;
    if (flags[i]) {
        unique_keys[id] = sorted[i];
        owner[id] = slots[i];
    }
}

__global__ void vertex_coordinates_kernel(long long num_nodes, const index_type* __restrict__ vertex_of_node,
                                          const long long* __restrict__ vertex_start,
                                          const double* __restrict__ node_coordinates,
                                          double* __restrict__ coordinates)
{
    const long long n = thread_index();
    if (n >= num_nodes) return;
    const index_type v = vertex_of_node[n];
    if (v < 0) return;
    const long long at = vertex_start[v];
    for (int axis = 0; axis < 3; ++axis) coordinates[3 * at + axis] = node_coordinates[3 * n + axis];
}

/// One thread per lattice point of a cell.
__global__ void lattice_points_kernel(LatticeMeshView mesh, int corners, LatticeShapeView shape,
                                      LatticeEntities entities, const double* __restrict__ basis,
                                      LatticeMapView map,
                                      const index_type* __restrict__ edge_owner,
                                      const index_type* __restrict__ face_owner,
                                      index_type* __restrict__ lattice_cells,
                                      double* __restrict__ coordinates)
{
    const long long t = thread_index();
    if (t >= mesh.num_cells * shape.num_points) return;
    const long long c = t / shape.num_points;
    const int q = static_cast<int>(t % shape.num_points);
    const long long number = lattice_point_number(mesh, shape, entities, corners, c, q);
    lattice_cells[t] = static_cast<index_type>(number);
    if (!writes_lattice_point(mesh, shape, entities, edge_owner, face_owner, c, q)) return;
    const int npc = map.nodes_per_cell;
    const index_type* nodes = map.cells + c * npc;
    const double* weights = basis + static_cast<long long>(q) * npc;
    for (int axis = 0; axis < 3; ++axis) {
        double x = 0.0;
        for (int j = 0; j < npc; ++j) x += weights[j] * map.coordinates[3 * static_cast<long long>(nodes[j]) + axis];
        coordinates[3 * number + axis] = x;
    }
}

/// One thread per (facet, point); failures keep the lowest code (f * 4 + failure).
__global__ void facet_points_kernel(LatticeFacetView facets, const index_type* __restrict__ vertex_of_node,
                                    long long num_nodes, LatticeShapeView shape,
                                    LatticeEntities entities, LatticeKeys keys,
                                    index_type* __restrict__ out,
                                    unsigned long long* __restrict__ first_failure)
{
    const long long t = thread_index();
    if (t >= facets.num_facets * shape.num_points) return;
    const long long f = t / shape.num_points;
    const long long number = facet_point_number(facets, vertex_of_node, num_nodes, shape, entities,
                                                keys, f, static_cast<int>(t % shape.num_points));
    out[t] = static_cast<index_type>(number);
    if (number < 0) atomicMin(first_failure, static_cast<unsigned long long>(f * 4 - number));
}

/// One thread per (cell, child).
__global__ void children_kernel(const index_type* __restrict__ lattice_cells, long long num_cells,
                                int points_per_cell, const int* __restrict__ pattern, int patterns,
                                int children, int nodes_per_child, const int* __restrict__ diagonals,
                                const double* __restrict__ coordinates, const std::uint8_t* __restrict__ chosen_of,
                                index_type* __restrict__ cells)
{
    const long long t = thread_index();
    if (t >= num_cells * children) return;
    const long long c = t / children;
    const int s = static_cast<int>(t % children);
    const index_type* points = lattice_cells + c * points_per_cell;
    const int chosen = chosen_of ? chosen_of[c] : refinement_choice(points, patterns, diagonals, coordinates);
    const int* nodes = pattern + (static_cast<long long>(chosen) * children + s) * nodes_per_child;
    index_type* out = cells + t * nodes_per_child;
    for (int k = 0; k < nodes_per_child; ++k) out[k] = points[nodes[k]];
}

__global__ void choices_kernel(const index_type* __restrict__ lattice_cells, long long num_cells, int points_per_cell,
                               int patterns, const int* __restrict__ diagonals, const double* __restrict__ coordinates,
                               std::uint8_t* __restrict__ choice)
{
    const long long c = thread_index();
    if (c < num_cells)
        choice[c] = static_cast<std::uint8_t>(
            refinement_choice(lattice_cells + c * points_per_cell, patterns, diagonals, coordinates));
}

/// One thread per output entry.
__global__ void copy_rows_kernel(const index_type* __restrict__ from, int from_stride,
                                 const index_type* __restrict__ from_rows, index_type* __restrict__ to,
                                 int to_stride, const index_type* __restrict__ to_rows, long long rows, int width)
{
    const long long t = thread_index();
    if (t >= rows * to_stride) return;
    const long long i = t / to_stride;
    const int q = static_cast<int>(t % to_stride);
    const long long in = from_rows ? from_rows[i] : i, out = to_rows ? to_rows[i] : i;
    to[out * to_stride + q] = q < width ? from[in * from_stride + q] : -1;
}

__global__ void refinement_children_kernel(long long num_cells, int children, const std::uint8_t* __restrict__ pattern,
                                           index_type* __restrict__ parent, std::uint8_t* __restrict__ child)
{
    const long long c = thread_index();
    if (c >= num_cells) return;
    const long long q = c / children;
    parent[c] = static_cast<index_type>(q);
    child[c] = static_cast<std::uint8_t>(pattern[q] * children + c % children);
}

/// In-place inclusive or exclusive sum of `count` ints.
template <bool inclusive>
void scan(const Executor& exec, index_type* data, long long count)
{
    auto stream = stream_of(exec);
    std::size_t bytes = 0;
    if constexpr (inclusive) {
        GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, data, data, count, stream));
        DeviceBuffer temp(exec, bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.as<void>(), bytes, data, data, count, stream));
    } else {
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, count, stream));
        DeviceBuffer temp(exec, bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), bytes, data, data, count, stream));
    }
}

/// The last value of a device array, read back.
template <typename T>
T last_value(const Executor& exec, const T* data, long long count)
{
    T value{};
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&value, data + count - 1, sizeof(T), cudaMemcpyDeviceToHost,
                                      stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return value;
}

}  // namespace

long long number_vertices(const Executor& exec, const index_type* cells, long long num_cells,
                          int nodes_per_cell, int corners, long long num_nodes,
                          index_type* vertex_of_node)
{
    if (num_nodes == 0) return 0;
    auto stream = stream_of(exec);
    DeviceBuffer flags(exec, num_nodes * sizeof(int));
    DeviceBuffer scanned(exec, num_nodes * sizeof(index_type));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(flags.as<int>(), 0, num_nodes * sizeof(int), stream));
    if (num_cells > 0) {
        mark_corners_kernel<<<grid_for(num_cells * corners), block_size, 0, stream>>>(
            cells, num_cells, nodes_per_cell, corners, flags.as<int>());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(scanned.as<index_type>(), flags.as<int>(),
                                      num_nodes * sizeof(int), cudaMemcpyDeviceToDevice, stream));
    scan<false>(exec, scanned.as<index_type>(), num_nodes);
    vertex_numbers_kernel<<<grid_for(num_nodes), block_size, 0, stream>>>(
        num_nodes, flags.as<int>(), scanned.as<index_type>(), vertex_of_node);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return static_cast<long long>(last_value(exec, scanned.as<index_type>(), num_nodes)) +
           last_value(exec, flags.as<int>(), num_nodes);
}

void lattice_edge_keys(const Executor& exec, const LatticeMeshView& mesh,
                       const LatticeShapeView& shape, std::uint64_t* keys)
{
    const long long count = mesh.num_cells * shape.num_edges;
    if (count == 0) return;
    edge_keys_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(
        mesh, shape, keys);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void lattice_face_keys(const Executor& exec, const LatticeMeshView& mesh,
                       const LatticeShapeView& shape, const LatticeEntities& entities,
                       std::uint64_t* keys)
{
    const long long count = mesh.num_cells * shape.num_faces;
    if (count == 0) return;
    face_keys_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(
        mesh, shape, entities, keys);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void lattice_cell_keys(const Executor& exec, const LatticeMeshView& mesh, int corners, std::uint64_t* keys)
{
    if (mesh.num_cells == 0) return;
    cell_keys_kernel<<<grid_for(mesh.num_cells), block_size, 0, stream_of(exec)>>>(
        mesh, corners, keys);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

long long lattice_vertex_blocks(const Executor& exec, long long vertices, const std::uint64_t* edge_keys,
                                long long edges, const std::uint64_t* face_keys, long long faces,
                                const std::uint64_t* cell_keys, long long cells, int m,
                                const LatticePointCounts& counts, index_type* first_edge,
                                index_type* first_face, index_type* first_cell,
                                long long* vertex_start)
{
    auto stream = stream_of(exec);
    vertex_firsts_kernel<<<grid_for(vertices + 1), block_size, 0, stream>>>(
        vertices, edge_keys, edges, face_keys, faces, cell_keys, cells, first_edge, first_face,
        first_cell);
    GPUFEM_CUDA_CHECK_LAUNCH();
    vertex_sizes_kernel<<<grid_for(vertices + 1), block_size, 0, stream>>>(
        vertices, m, counts, first_edge, first_face, first_cell, vertex_start);
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, vertex_start, vertex_start,
                                                    vertices + 1, stream));
    {
        DeviceBuffer temp(exec, bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), bytes, vertex_start,
                                                        vertex_start, vertices + 1, stream));
    }
    return last_value(exec, vertex_start, vertices + 1);
}

void lattice_point_offsets(const Executor& exec, const std::uint64_t* keys, long long count,
                           const LatticeKeyPoints& per_key, long long* offsets)
{
    auto stream = stream_of(exec);
    key_points_kernel<<<grid_for(count + 1), block_size, 0, stream>>>(keys, count, per_key, offsets);
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, offsets, offsets, count + 1, stream));
    DeviceBuffer temp(exec, bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), bytes, offsets, offsets, count + 1, stream));
}

long long number_entities(const Executor& exec, const std::uint64_t* keys, long long count,
                          int key_bits, index_type* entity_of_slot, std::uint64_t* unique_keys,
                          index_type* owner)
{
    if (count == 0) return 0;
    auto stream = stream_of(exec);
    DeviceBuffer sorted(exec, count * sizeof(std::uint64_t));
    DeviceBuffer slots_in(exec, count * sizeof(index_type));
    DeviceBuffer slots(exec, count * sizeof(index_type));
    iota_kernel<<<grid_for(count), block_size, 0, stream>>>(count, slots_in.as<index_type>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, keys, sorted.as<std::uint64_t>(), slots_in.as<const index_type>(),
        slots.as<index_type>(), count, 0, key_bits, stream));
    {
        DeviceBuffer temp(exec, bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            temp.as<void>(), bytes, keys, sorted.as<std::uint64_t>(),
            slots_in.as<const index_type>(), slots.as<index_type>(), count, 0, key_bits, stream));
    }
    // slots_in is free again: it holds the flags, then their inclusive sums in `ids`.
    index_type* flags = slots_in.as<index_type>();
    DeviceBuffer ids(exec, count * sizeof(index_type));
    first_of_key_kernel<<<grid_for(count), block_size, 0, stream>>>(count, sorted.as<std::uint64_t>(), flags);
    GPUFEM_CUDA_CHECK_LAUNCH();
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(ids.as<index_type>(), flags, count * sizeof(index_type),
                                      cudaMemcpyDeviceToDevice, stream));
    scan<true>(exec, ids.as<index_type>(), count);
    scatter_entities_kernel<<<grid_for(count), block_size, 0, stream>>>(
        count, sorted.as<std::uint64_t>(), slots.as<index_type>(), flags, ids.as<index_type>(),
        entity_of_slot, unique_keys, owner);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return last_value(exec, ids.as<index_type>(), count);
}

void fill_lattice(const Executor& exec, const LatticeMeshView& mesh, int corners, const LatticeShapeView& shape,
                  const LatticeEntities& entities, const double* basis, const LatticeMapView& map,
                  const double* node_coordinates, long long num_nodes,
                  const index_type* edge_owner, const index_type* face_owner,
                  index_type* lattice_cells, double* coordinates)
{
    auto stream = stream_of(exec);
    if (num_nodes > 0) {
        vertex_coordinates_kernel<<<grid_for(num_nodes), block_size, 0, stream>>>(
            num_nodes, mesh.vertex_of_node, entities.vertex_start, node_coordinates, coordinates);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    const long long count = mesh.num_cells * shape.num_points;
    if (count == 0) return;
    lattice_points_kernel<<<grid_for(count), block_size, 0, stream>>>(
        mesh, corners, shape, entities, basis, map, edge_owner, face_owner, lattice_cells, coordinates);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

long long fill_facet_lattice(const Executor& exec, const LatticeFacetView& facets,
                             const index_type* vertex_of_node, long long num_nodes,
                             const LatticeShapeView& shape, const LatticeEntities& entities,
                             const LatticeKeys& keys, index_type* out)
{
    const long long count = facets.num_facets * shape.num_points;
    if (count == 0) return -1;
    auto stream = stream_of(exec);
    DeviceBuffer failure(exec, sizeof(unsigned long long));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(failure.as<void>(), 0xff, sizeof(unsigned long long), stream));
    facet_points_kernel<<<grid_for(count), block_size, 0, stream>>>(
        facets, vertex_of_node, num_nodes, shape, entities, keys, out, failure.as<unsigned long long>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    const unsigned long long first = last_value(exec, failure.as<unsigned long long>(), 1);
    return first == ~0ULL ? -1 : static_cast<long long>(first);
}

void fill_children(const Executor& exec, const index_type* lattice_cells, long long num_cells,
                   int points_per_cell, const int* pattern, int patterns, int children,
                   int nodes_per_child, const int* diagonals, const double* coordinates,
                   const std::uint8_t* chosen, index_type* cells)
{
    const long long count = num_cells * children;
    if (count == 0) return;
    children_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(
        lattice_cells, num_cells, points_per_cell, pattern, patterns, children, nodes_per_child,
        diagonals, coordinates, chosen, cells);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void refinement_choices(const Executor& exec, const index_type* lattice_cells, long long num_cells,
                        int points_per_cell, int patterns, const int* diagonals, const double* coordinates,
                        std::uint8_t* choice)
{
    if (num_cells == 0) return;
    choices_kernel<<<grid_for(num_cells), block_size, 0, stream_of(exec)>>>(
        lattice_cells, num_cells, points_per_cell, patterns, diagonals, coordinates, choice);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void copy_rows(const Executor& exec, const index_type* from, int from_stride, const index_type* from_rows,
               index_type* to, int to_stride, const index_type* to_rows, long long rows, int width)
{
    const long long count = rows * to_stride;
    if (count == 0) return;
    copy_rows_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(
        from, from_stride, from_rows, to, to_stride, to_rows, rows, width);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void refinement_children(const Executor& exec, long long num_cells, int children, const std::uint8_t* pattern,
                         index_type* parent, std::uint8_t* child)
{
    if (num_cells == 0) return;
    refinement_children_kernel<<<grid_for(num_cells), block_size, 0, stream_of(exec)>>>(
        num_cells, children, pattern, parent, child);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace gpufem::kernels::cuda
