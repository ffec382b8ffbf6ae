// Device bDIA (linalg/bdia.hpp): slab bands, fill, and the SpMV with each block's x window
// staged in shared memory (Wang, Ren & Tian 2013, §3.2, §3.4), one block of bdia_slab threads
// per slab.
#include <algorithm>
#include <climits>
#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "linalg/bdia.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int slab = bdia_slab;

/// One block per slab: lowest / highest diagonal of the slab's entries (block reductions of
/// each row's first and last column), the slab's band, its size for the scan, and stats.
__global__ void __launch_bounds__(slab)
    slab_bands_kernel(index_type rows, const index_type* __restrict__ ptr,
                      const index_type* __restrict__ col, index_type* __restrict__ offset,
                      index_type* __restrict__ width, std::int64_t* __restrict__ slab_size,
                      index_type* __restrict__ stats)
{
    using Reduce = cub::BlockReduce<index_type, slab>;
    __shared__ typename Reduce::TempStorage temp;
    const index_type s = blockIdx.x;
    const index_type i = s * slab + static_cast<index_type>(threadIdx.x);
    index_type lo = INT_MAX, hi = INT_MIN;
    if (i < rows) {
        const index_type begin = ptr[i], end = ptr[i + 1];
        if (begin < end) {
            lo = col[begin] - i;
            hi = col[end - 1] - i;
        }
    }
    const index_type block_lo =
        Reduce(temp).Reduce(lo, [](index_type a, index_type b) { return a < b ? a : b; });
    __syncthreads();  // temp is reused
    const index_type block_hi =
        Reduce(temp).Reduce(hi, [](index_type a, index_type b) { return a > b ? a : b; });
    if (threadIdx.x != 0) return;
    if (block_lo > block_hi) {  // only empty rows
        offset[s] = 0;
        width[s] = 0;
        slab_size[s] = 0;
        return;
    }
    const index_type w = block_hi - block_lo + 1;
    offset[s] = block_lo;
    width[s] = w;
    slab_size[s] = static_cast<std::int64_t>(w) * slab;
    atomicMax(stats, max(abs(block_lo), abs(block_hi)));
    atomicMax(stats + 1, w);
}

/// One thread per row scatters its entries into its slab's band.
template <typename V>
__global__ void __launch_bounds__(slab)
    fill_kernel(index_type rows, const index_type* __restrict__ ptr,
                const index_type* __restrict__ col, const V* __restrict__ val,
                const std::int64_t* __restrict__ slab_ptr, const index_type* __restrict__ offset,
                V* __restrict__ values)
{
    const index_type i = blockIdx.x * slab + static_cast<index_type>(threadIdx.x);
    if (i >= rows) return;
    const index_type s = blockIdx.x;
    V* band = values + slab_ptr[s] + threadIdx.x;
    const index_type first_diagonal = offset[s];
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        const std::int64_t diagonal = static_cast<std::int64_t>(col[k]) - i - first_diagonal;
        band[diagonal * slab] = val[k];
    }
}

/// y = alpha A x + beta y, one block per slab, one thread per row. Thread t of slab s computes
/// row r0 + t from the slab's band (column-major: consecutive threads read consecutive values)
/// and x[r0 + offset + t + k], k < width: the block's x window starts at r0 + offset and holds
/// slab + width - 1 values. When it fits in window_capacity values of (dynamic) shared memory
/// it is loaded once, coalesced, with zeros outside 0 .. rows-1 (the virtual padding of Wang,
/// Ren & Tian 2013, §3.2), and thread t reads window[t + k]: consecutive threads hit
/// consecutive banks. Otherwise x is read from global memory through the read-only cache, with
/// each row's k range clipped to 0 .. rows-1. The branch is uniform in the block (it depends on
/// the slab only), so the barrier is safe.
template <typename V>
__global__ void __launch_bounds__(slab)
    spmv_kernel(index_type rows, const std::int64_t* __restrict__ slab_ptr,
                const index_type* __restrict__ offset, const index_type* __restrict__ width,
                const V* __restrict__ values, V alpha, const V* __restrict__ x, V beta,
                V* __restrict__ y, int window_capacity)
{
    extern __shared__ __align__(16) unsigned char shared_raw[];
    V* window = reinterpret_cast<V*>(shared_raw);

    const index_type s = blockIdx.x;
    const int t = threadIdx.x;
    const std::int64_t r0 = static_cast<std::int64_t>(s) * slab;
    const index_type row = static_cast<index_type>(r0 + t);
    const index_type w = width[s];
    const std::int64_t window_begin = r0 + offset[s];  // column of window[0]
    const V* band = values + slab_ptr[s] + t;

    V sum = 0;
    if (w + slab - 1 <= window_capacity) {
        const int window_size = w + slab - 1;
        for (int j = t; j < window_size; j += slab) {
            const std::int64_t c = window_begin + j;
            window[j] = c >= 0 && c < rows ? __ldg(x + c) : V(0);
        }
        __syncthreads();
        if (row >= rows) return;
        const V* xw = window + t;
#pragma unroll 8
        for (int k = 0; k < w; ++k) sum += band[static_cast<std::int64_t>(k) * slab] * xw[k];
    } else {
        if (row >= rows) return;
        // Column of entry k is first + k; keep 0 <= first + k < rows.
        const std::int64_t first = window_begin + t;
        const int k_begin = static_cast<int>(first < 0 ? -first : 0);
        const int k_end = static_cast<int>(first + w > rows ? rows - first : w);
        const V* xr = x + first;
#pragma unroll 8
        for (int k = k_begin; k < k_end; ++k)
            sum += band[static_cast<std::int64_t>(k) * slab] * __ldg(xr + k);
    }
    y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

}  // namespace

template <typename V>
void bdia_slab_bands(const Executor& exec, const Csr<V>& a, index_type* offset, index_type* width,
                     std::int64_t* slab_ptr, index_type* stats)
{
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const index_type slabs = (a.rows + slab - 1) / slab;
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(stats, 0, 2 * sizeof(index_type), stream));
    // slab_ptr[slabs] = 0 before the scan makes it the total.
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(slab_ptr + slabs, 0, sizeof(std::int64_t), stream));
    if (slabs == 0) return;
    slab_bands_kernel<<<slabs, slab, 0, stream>>>(a.rows, a.row_ptr.data(), a.col_idx.data(),
                                                   offset, width, slab_ptr, stats);
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, slab_ptr, slabs + 1, stream));
    void* temp = exec.alloc(temp_bytes);
    const cudaError_t err =
        cub::DeviceScan::ExclusiveSum(temp, temp_bytes, slab_ptr, slabs + 1, stream);
    exec.free(temp);  // cudaFree waits for the scan
    GPUFEM_CUDA_CHECK(err);
}

template <typename V>
void bdia_fill(const Executor& exec, const Csr<V>& a, Bdia<V>& b)
{
    auto stream = static_cast<cudaStream_t>(exec.stream());
    if (b.values.empty()) return;
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(b.values.data(), 0, b.values.bytes(), stream));
    fill_kernel<V><<<b.slabs(), slab, 0, stream>>>(a.rows, a.row_ptr.data(), a.col_idx.data(),
                                                   a.values.data(), b.slab_ptr.data(),
                                                   b.offset.data(), b.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void bdia_spmv(const Executor& exec, const Bdia<V>& a, V alpha, const V* x, V beta, V* y,
               std::size_t max_shared_bytes)
{
    if (a.rows == 0) return;
    // Shared memory per block: the widest window, up to the cap. Slabs whose window exceeds
    // it take the global-memory path.
    const std::int64_t widest_window = std::int64_t{a.max_width} + slab - 1;
    const auto capacity = static_cast<int>(std::min<std::int64_t>(
        {widest_window, static_cast<std::int64_t>(max_shared_bytes / sizeof(V)), INT_MAX / 2}));
    const std::size_t shared_bytes = static_cast<std::size_t>(capacity) * sizeof(V);
    if (shared_bytes > 48 * 1024)  // beyond the default limit a kernel must opt in
        GPUFEM_CUDA_CHECK(cudaFuncSetAttribute(spmv_kernel<V>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shared_bytes)));
    spmv_kernel<V><<<a.slabs(), slab, shared_bytes, static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.slab_ptr.data(), a.offset.data(), a.width.data(), a.values.data(), alpha, x,
        beta, y, capacity);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

std::size_t bdia_available_bytes(const Executor& exec)
{
    GPUFEM_CUDA_CHECK(cudaSetDevice(exec.device_id()));
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUFEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(bdia_slab_bands, bdia_fill, bdia_spmv)

}  // namespace gpufem::kernels::cuda
