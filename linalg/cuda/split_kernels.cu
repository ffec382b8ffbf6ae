// Device split of owned rows into owned and ghost columns: one warp per row counts its
// entries of each kind, an exclusive scan (cub::DeviceScan) makes the offsets, and one warp
// per row copies its entries in their order (each step's 32 entries placed by ballots), so
// that reads and writes are coalesced.
#include <cub/device/device_scan.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"
#include "linalg/split_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::DeviceBuffer;

constexpr int block_size = 256;

unsigned grid_for(index_type n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

constexpr unsigned full_warp = 0xffffffffu;

/// The warps of a launch of one warp per row (32 threads a row).
unsigned warps_grid_for(index_type rows)
{
    return static_cast<unsigned>((static_cast<long long>(rows) * 32 + block_size - 1) / block_size);
}

template <typename O>
__global__ void count_kernel(index_type rows, index_type owned, const O* __restrict__ ptr,
                             const index_type* __restrict__ col, O* local_count, index_type* nonlocal_count)
{
    const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x & 31);
    if (i > rows) return;
    if (i == rows) {  // the scans' last entries: the totals
        if (lane == 0) local_count[rows] = nonlocal_count[rows] = 0;
        return;
    }
    index_type here = 0;
    for (O k = ptr[i] + lane; k < ptr[i + 1]; k += 32) here += col[k] < owned;
    for (int offset = 16; offset > 0; offset >>= 1) here += __shfl_xor_sync(full_warp, here, offset);
    if (lane == 0) {
        local_count[i] = here;
        nonlocal_count[i] = static_cast<index_type>(ptr[i + 1] - ptr[i] - here);
    }
}

template <typename V, typename O>
__global__ void split_kernel(index_type rows, index_type owned, const O* __restrict__ ptr,
                             const index_type* __restrict__ col,
                             const V* __restrict__ val, const O* __restrict__ local_ptr,
                             index_type* __restrict__ local_col, V* __restrict__ local_val,
                             const index_type* __restrict__ nonlocal_ptr, index_type* __restrict__ nonlocal_col,
                             V* __restrict__ nonlocal_val)
{
    const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x & 31);
    if (i >= rows) return;  // a whole warp: the ballots below see every lane
    const unsigned below = (1u << lane) - 1u;
    O l = local_ptr[i];
    index_type g = nonlocal_ptr[i];
    for (O k0 = ptr[i]; k0 < ptr[i + 1]; k0 += 32) {
        const O k = k0 + lane;
        const bool present = k < ptr[i + 1];
        const index_type c = present ? col[k] : 0;
        const bool mine = present && c < owned;
        const unsigned local_lanes = __ballot_sync(full_warp, mine);
        const unsigned ghost_lanes = __ballot_sync(full_warp, present && !mine);
        if (mine) {
            const O at = l + __popc(local_lanes & below);
            local_col[at] = c;
            local_val[at] = val[k];
        } else if (present) {
            const index_type at = g + __popc(ghost_lanes & below);
            nonlocal_col[at] = c - owned;
            nonlocal_val[at] = val[k];
        }
        l += __popc(local_lanes);
        g += __popc(ghost_lanes);
    }
}

/// flag[i] = 1 where row i holds entries, for i < rows; flag[rows] = 0 (the scan's total).
__global__ void nonempty_flag_kernel(index_type rows, const index_type* __restrict__ ptr, index_type* __restrict__ flag)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows) flag[i] = ptr[i + 1] > ptr[i];
    else if (i == rows) flag[rows] = 0;
}

/// Each row with entries at its place among them (position: the flags' exclusive scan).
__global__ void nonempty_scatter_kernel(index_type rows, const index_type* __restrict__ ptr,
                                        const index_type* __restrict__ position, index_type* __restrict__ at,
                                        index_type* __restrict__ end)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows || ptr[i + 1] == ptr[i]) return;
    at[position[i]] = i;
    end[position[i]] = ptr[i + 1];
}

template <typename V>
__global__ void add_rows_kernel(index_type rows, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                                const V* __restrict__ val, const index_type* __restrict__ row_of, V alpha,
                                const V* __restrict__ x, V* __restrict__ y)
{
    const index_type k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= rows) return;
    V sum = 0;
    for (index_type e = ptr[k]; e < ptr[k + 1]; ++e) sum += val[e] * x[col[e]];
    y[row_of[k]] += alpha * sum;
}

template <typename V>
__global__ void mask_to_values_kernel(index_type n, const std::uint8_t* __restrict__ mask, V* __restrict__ out)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mask[i] ? V(1) : V(0);
}

template <typename V>
__global__ void values_to_mask_kernel(index_type n, const V* __restrict__ in, std::uint8_t* __restrict__ mask)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mask[i] = in[i] != V(0);
}

template <typename V>
__global__ void stage_kernel(index_type n, const index_type* __restrict__ at, const V* __restrict__ from,
                             index_type owned, index_type ghost_count, const V* __restrict__ ghosts, V* __restrict__ to)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const index_type row = at[i];
        to[row] = from[row];
    } else if (i - n < ghost_count) {
        to[owned + (i - n)] = ghosts[i - n];
    }
}

template <typename V>
__global__ void add_staged_kernel(index_type n, const index_type* __restrict__ at, V* __restrict__ staged,
                                  index_type owned, index_type ghost_count, V* __restrict__ y)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const index_type row = at[i];
        y[row] += staged[row];
        staged[row] = V(0);
    } else if (i - n < ghost_count) {
        staged[owned + (i - n)] = V(0);
    }
}

/// In-place exclusive scan of n values.
template <typename T>
void exclusive_scan(const Executor& exec, T* values, index_type n)
{
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, values, n, stream));
    DeviceBuffer temp(exec, bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), bytes, values, n, stream));
    exec.synchronize();  // temp is freed on return
}

}  // namespace

template <typename V, typename O>
void split_row_offsets(const Executor& exec, const Csr<V, O>& a, index_type owned, O* local_ptr,
                       index_type* nonlocal_ptr)
{
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    count_kernel<<<warps_grid_for(a.rows + 1), block_size, 0, stream>>>(a.rows, owned, a.row_ptr.data(),
                                                                         a.col_idx.data(), local_ptr, nonlocal_ptr);
    GPUFEM_CUDA_CHECK_LAUNCH();
    exclusive_scan(exec, local_ptr, a.rows + 1);
    exclusive_scan(exec, nonlocal_ptr, a.rows + 1);
}

template <typename V, typename O>
void split_rows(const Executor& exec, const Csr<V, O>& a, index_type owned, const O* local_ptr,
                index_type* local_col, V* local_val,
                const index_type* nonlocal_ptr, index_type* nonlocal_col, V* nonlocal_val)
{
    if (a.rows == 0) return;
    split_kernel<V, O><<<warps_grid_for(a.rows), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, owned, a.row_ptr.data(), a.col_idx.data(), a.values.data(), local_ptr, local_col, local_val, nonlocal_ptr,
        nonlocal_col, nonlocal_val);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
index_type nonempty_rows(const Executor& exec, const Csr<V>& a, index_type* at, index_type* end)
{
    if (a.rows == 0) return 0;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    DeviceBuffer position(exec, (static_cast<std::size_t>(a.rows) + 1) * sizeof(index_type));
    auto* pos = position.as<index_type>();
    nonempty_flag_kernel<<<grid_for(a.rows + 1), block_size, 0, stream>>>(a.rows, a.row_ptr.data(), pos);
    GPUFEM_CUDA_CHECK_LAUNCH();
    exclusive_scan(exec, pos, a.rows + 1);
    nonempty_scatter_kernel<<<grid_for(a.rows), block_size, 0, stream>>>(a.rows, a.row_ptr.data(), pos, at, end);
    GPUFEM_CUDA_CHECK_LAUNCH();
    index_type count = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&count, pos + a.rows, sizeof(index_type), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));  // position is freed on return
    return count;
}

template <typename V>
void add_compressed_rows(const Executor& exec, const Csr<V>& a, const index_type* rows, V alpha, const V* x, V* y)
{
    if (a.rows == 0) return;
    add_rows_kernel<V><<<grid_for(a.rows), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), rows, alpha, x, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void mask_to_values(const Executor& exec, index_type n, const std::uint8_t* mask, V* out)
{
    if (n == 0) return;
    mask_to_values_kernel<V><<<grid_for(n), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(n, mask, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void values_to_mask(const Executor& exec, index_type n, const V* in, std::uint8_t* mask)
{
    if (n == 0) return;
    values_to_mask_kernel<V><<<grid_for(n), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(n, in, mask);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void stage_boundary_values(const Executor& exec, index_type n, const index_type* at, const V* from, index_type owned,
                           index_type ghost_count, const V* ghosts, V* to)
{
    if (n + ghost_count == 0) return;
    stage_kernel<V><<<grid_for(n + ghost_count), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        n, at, from, owned, ghost_count, ghosts, to);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void add_boundary_rows(const Executor& exec, index_type n, const index_type* at, V* staged, index_type owned,
                       index_type ghost_count, V* y)
{
    if (n + ghost_count == 0) return;
    add_staged_kernel<V><<<grid_for(n + ghost_count), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        n, at, staged, owned, ghost_count, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(split_row_offsets, split_rows)
GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(nonempty_rows, add_compressed_rows, mask_to_values, values_to_mask,
                                   stage_boundary_values, add_boundary_rows)

}  // namespace gpufem::kernels::cuda
