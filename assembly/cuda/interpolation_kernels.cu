#include <climits>

#include <cub/device/device_scan.cuh>

#include "assembly/interpolation_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

/// a[i] = a[0] + ... + a[i] over n entries in place.
void inclusive_scan(const Executor& exec, index_type* a, long long n)
{
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, a, a, n, stream_of(exec)));
    DeviceBuffer temp(exec, bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.as<void>(), bytes, a, a, n, stream_of(exec)));
}

/// The value at a device address, read back.
template <typename T>
T read_back(const Executor& exec, const T* at)
{
    T value{};
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&value, at, sizeof(T), cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return value;
}

__global__ void mark_coarse_nodes_kernel(CoarseLatticeView view, index_type* __restrict__ marks)
{
    const long long t = thread_index();
    if (t >= view.num_cells * view.coarse_per_cell) return;
    const long long e = t / view.coarse_per_cell;
    const int local = coarse_local_node(view, e, static_cast<int>(t % view.coarse_per_cell));
    if (local >= 0) marks[view.cells[e * view.nodes_per_cell + local]] = 1;
}

__global__ void coarse_columns_kernel(long long n, const index_type* __restrict__ marks,
                                      const index_type* __restrict__ rank, index_type* __restrict__ column)
{
    const long long node = thread_index();
    if (node < n) column[node] = marks[node] ? rank[node] - 1 : -1;
}

__global__ void list_coarse_nodes_kernel(const index_type* __restrict__ column, long long n,
                                         index_type* __restrict__ column_nodes)
{
    const long long node = thread_index();
    if (node < n && column[node] >= 0) column_nodes[column[node]] = static_cast<index_type>(node);
}

__global__ void coarse_cell_nodes_kernel(CoarseLatticeView view, const index_type* __restrict__ column,
                                         index_type* __restrict__ coarse_cells)
{
    const long long t = thread_index();
    if (t >= view.num_cells * view.coarse_per_cell) return;
    const long long e = t / view.coarse_per_cell;
    const int local = coarse_local_node(view, e, static_cast<int>(t % view.coarse_per_cell));
    coarse_cells[t] = local < 0 ? -1 : column[view.cells[e * view.nodes_per_cell + local]];
}

__global__ void fill_kernel(long long n, long long value, long long* __restrict__ a)
{
    const long long i = thread_index();
    if (i < n) a[i] = value;
}

__global__ void owner_slots_kernel(const index_type* __restrict__ cells, long long slots,
                                   unsigned long long* __restrict__ owner)
{
    const long long slot = thread_index();
    if (slot < slots && cells[slot] >= 0)  // -1: a smaller type's padding
        atomicMin(owner + cells[slot], static_cast<unsigned long long>(slot));
}

__global__ void unowned_kernel(long long n, long long* __restrict__ owner)
{
    const long long node = thread_index();
    if (node < n && owner[node] == LLONG_MAX) owner[node] = -1;  // in no cell
}

__global__ void row_lengths_kernel(CoarseLatticeView view, const long long* __restrict__ owner,
                                   const index_type* __restrict__ row_nodes, long long rows,
                                   const int* __restrict__ row_length, index_type* __restrict__ lengths)
{
    const long long i = thread_index();
    if (i >= rows) return;
    const long long slot = owner[interpolation_row_node(row_nodes, i)];
    lengths[i] = slot < 0 ? 0 : row_length[reference_row(view, slot)];
}

/// Row entries of rows of up to this many coarse nodes are ranked by a warp in shared memory.
constexpr int warp_ranked_coarse_nodes = 1024;

/// Lanes that rank one row of ncl coarse nodes: the power of two at or above ncl, at most a
/// warp (a first-order cell's 4 or 8 nodes: 8 rows a warp instead of one).
inline int ranking_lanes(int ncl)
{
    int lanes = 1;
    while (lanes < ncl && lanes < 32) lanes *= 2;
    return lanes;
}

/// Row i per group of `lanes` lanes (32 / lanes rows a warp): each kept entry's place is the
/// number of kept entries with a smaller column (equal ones: a smaller m), as
/// write_interpolation_row's insertion gives, so a row of up to 125 entries costs a few hundred
/// shared reads per lane instead of an insertion into memory. Shared memory: ncl columns per
/// row of the block.
template <typename V>
__global__ void ranked_entries_kernel(CoarseLatticeView view, ReferenceInterpolationView reference,
                                      const long long* __restrict__ owner, const index_type* __restrict__ row_nodes,
                                      long long rows, int lanes, const index_type* __restrict__ column,
                                      const index_type* __restrict__ ptr, index_type* __restrict__ col,
                                      V* __restrict__ val)
{
    extern __shared__ index_type row_columns[];
    const int lane = threadIdx.x % 32, ncl = view.coarse_per_cell, group = lane / lanes, member = lane % lanes;
    const long long i = warp_index() * (32 / lanes) + group;
    if (i >= rows) return;  // whole groups leave together
    const unsigned group_mask = (lanes == 32 ? ~0u : ((1u << lanes) - 1u)) << (group * lanes);
    index_type* columns = row_columns + (threadIdx.x / lanes) * ncl;
    const InterpolationRowSource s = interpolation_row_source(view, reference, owner, row_nodes, i);
    if (s.e < 0) return;
    for (int m = member; m < ncl; m += lanes)
        columns[m] = interpolation_weight_kept(s.weights[m]) ? interpolation_column(view, s, m, column) : -1;
    __syncwarp(group_mask);
    const index_type begin = ptr[i];
    for (int m = member; m < ncl; m += lanes) {
        const index_type c = columns[m];
        if (c < 0) continue;
        int place = 0;
        for (int n = 0; n < ncl; ++n) {
            const index_type d = columns[n];
            place += d >= 0 && (d < c || (d == c && n < m));
        }
        col[begin + place] = c;
        val[begin + place] = static_cast<V>(s.weights[m]);
    }
}

template <typename V>
__global__ void entries_kernel(CoarseLatticeView view, ReferenceInterpolationView reference,
                               const long long* __restrict__ owner, const index_type* __restrict__ row_nodes,
                               long long rows, const index_type* __restrict__ column,
                               const index_type* __restrict__ ptr, index_type* __restrict__ col, V* __restrict__ val)
{
    const long long i = thread_index();
    if (i < rows) write_interpolation_row(view, reference, owner, row_nodes, i, column, ptr, col, val);
}

}  // namespace

long long number_coarse_nodes(const Executor& exec, const CoarseLatticeView& view, index_type* column)
{
    const long long n = view.num_nodes;
    if (n == 0) return 0;
    DeviceBuffer marks(exec, n * sizeof(index_type));
    DeviceBuffer rank(exec, n * sizeof(index_type));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(marks.as<index_type>(), 0, n * sizeof(index_type), stream_of(exec)));
    const long long slots = view.num_cells * view.coarse_per_cell;
    if (slots > 0) {
        mark_coarse_nodes_kernel<<<grid_for(slots), block_size, 0, stream_of(exec)>>>(view, marks.as<index_type>());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(rank.as<index_type>(), marks.as<index_type>(), n * sizeof(index_type),
                                      cudaMemcpyDeviceToDevice, stream_of(exec)));
    inclusive_scan(exec, rank.as<index_type>(), n);
    coarse_columns_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, marks.as<index_type>(),
                                                                            rank.as<index_type>(), column);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return read_back(exec, rank.as<index_type>() + n - 1);
}

void list_coarse_nodes(const Executor& exec, const index_type* column, long long num_nodes, index_type* column_nodes)
{
    if (num_nodes == 0) return;
    list_coarse_nodes_kernel<<<grid_for(num_nodes), block_size, 0, stream_of(exec)>>>(column, num_nodes, column_nodes);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void coarse_cell_nodes(const Executor& exec, const CoarseLatticeView& view, const index_type* column,
                       index_type* coarse_cells)
{
    const long long slots = view.num_cells * view.coarse_per_cell;
    if (slots == 0) return;
    coarse_cell_nodes_kernel<<<grid_for(slots), block_size, 0, stream_of(exec)>>>(view, column, coarse_cells);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void node_owner_slots(const Executor& exec, const CoarseLatticeView& view, long long* owner)
{
    const long long n = view.num_nodes, slots = view.num_cells * view.nodes_per_cell;
    if (n == 0) return;
    fill_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, LLONG_MAX, owner);
    GPUFEM_CUDA_CHECK_LAUNCH();
    if (slots > 0) {
        // Slots are non-negative, so their order as unsigned is theirs.
        owner_slots_kernel<<<grid_for(slots), block_size, 0, stream_of(exec)>>>(
            view.cells, slots, reinterpret_cast<unsigned long long*>(owner));
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    unowned_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, owner);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

long long interpolation_row_offsets(const Executor& exec, const CoarseLatticeView& view,
                                    const long long* owner, const index_type* row_nodes, long long rows,
                                    const int* row_length, index_type* ptr)
{
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(ptr, 0, sizeof(index_type), stream_of(exec)));
    if (rows == 0) return 0;
    row_lengths_kernel<<<grid_for(rows), block_size, 0, stream_of(exec)>>>(view, owner, row_nodes,
                                                                            rows, row_length, ptr + 1);
    GPUFEM_CUDA_CHECK_LAUNCH();
    inclusive_scan(exec, ptr + 1, rows);
    return read_back(exec, ptr + rows);
}

template <typename V>
void interpolation_entries(const Executor& exec, const CoarseLatticeView& view,
                           const ReferenceInterpolationView& reference, const long long* owner,
                           const index_type* row_nodes, long long rows, const index_type* column,
                           const index_type* ptr, index_type* col, V* val)
{
    if (rows == 0) return;
    if (view.coarse_per_cell <= warp_ranked_coarse_nodes) {
        const int lanes = ranking_lanes(view.coarse_per_cell), rows_per_warp = 32 / lanes;
        const std::size_t shared =
            sizeof(index_type) * gpufem::cuda::warp_items_per_block * rows_per_warp * view.coarse_per_cell;
        ranked_entries_kernel<V><<<warp_grid_for((rows + rows_per_warp - 1) / rows_per_warp), block_size, shared,
                                   stream_of(exec)>>>(view, reference, owner, row_nodes, rows, lanes, column, ptr,
                                                      col, val);
    } else {
        entries_kernel<V><<<grid_for(rows), block_size, 0, stream_of(exec)>>>(view, reference, owner, row_nodes,
                                                                               rows, column, ptr, col, val);
    }
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(interpolation_entries)

}  // namespace gpufem::kernels::cuda
