// SELL-P on the device (Anzt et al. 2015, §3.1): conversion from CSR (optional CUB segmented
// sort of the rows by length within sigma windows, slice widths, CUB scan of the slice sizes, a
// scatter kernel) and the SpMV with t threads per row and a shuffle reduction.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/sellp.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

unsigned grid_for(std::int64_t threads)
{
    return static_cast<unsigned>((threads + block_size - 1) / block_size);
}

__device__ std::int64_t global_thread()
{
    return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// Row of the matrix placed at position r in slice order (-1 for the last slice's padding).
__device__ index_type source_row(std::int64_t r, index_type rows, const index_type* perm)
{
    if (r >= rows) return -1;
    return perm != nullptr ? perm[r] : static_cast<index_type>(r);
}

/// Sort inputs: key = row length, value = row index; window w spans
/// [min(w sigma, rows), min((w + 1) sigma, rows)).
__global__ void __launch_bounds__(block_size)
    sort_inputs_kernel(index_type rows, index_type sigma, index_type windows,
                       const index_type* __restrict__ ptr, index_type* __restrict__ keys,
                       index_type* __restrict__ order, index_type* __restrict__ window_ptr)
{
    const std::int64_t i = global_thread();
    if (i < rows) {
        keys[i] = ptr[i + 1] - ptr[i];
        order[i] = static_cast<index_type>(i);
    }
    if (i <= windows) window_ptr[i] = static_cast<index_type>(min(i * sigma, std::int64_t{rows}));
}

/// One thread per slice (plus one writing the scan's trailing 0): slice width = longest row
/// rounded up to a multiple of threads; size = width * slice entries.
__global__ void __launch_bounds__(block_size)
    slice_sizes_kernel(index_type rows, index_type slice, int threads, index_type num_slices,
                       const index_type* __restrict__ ptr, const index_type* __restrict__ perm,
                       std::int64_t* __restrict__ sizes)
{
    const std::int64_t s = global_thread();
    if (s > num_slices) return;
    if (s == num_slices) {
        sizes[s] = 0;
        return;
    }
    const std::int64_t first = s * slice;
    const std::int64_t last = min(first + slice, std::int64_t{rows});
    index_type width = 0;
    for (std::int64_t r = first; r < last; ++r) {
        const index_type row = source_row(r, rows, perm);
        width = max(width, ptr[row + 1] - ptr[row]);
    }
    width = (width + threads - 1) / threads * threads;
    sizes[s] = std::int64_t{width} * slice;
}

__global__ void __launch_bounds__(block_size)
    narrow_kernel(std::int64_t n, const std::int64_t* __restrict__ in, index_type* __restrict__ out)
{
    const std::int64_t i = global_thread();
    if (i < n) out[i] = static_cast<index_type>(in[i]);
}

/// One thread per padded row: entry k goes to slice_ptr[s] + k * slice + l, so consecutive
/// threads of a slice write consecutive addresses.
template <typename V>
__global__ void __launch_bounds__(block_size)
    sellp_fill_kernel(index_type rows, index_type cols, index_type slice, index_type num_slices,
                      const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                      const V* __restrict__ val, const index_type* __restrict__ perm,
                      const index_type* __restrict__ slice_ptr, bool pad_minus_one,
                      index_type* __restrict__ out_col, V* __restrict__ out_val)
{
    const std::int64_t r = global_thread();
    if (r >= std::int64_t{num_slices} * slice) return;
    const index_type s = static_cast<index_type>(r / slice);
    const index_type l = static_cast<index_type>(r - std::int64_t{s} * slice);
    const index_type begin_out = slice_ptr[s];
    const index_type width = (slice_ptr[s + 1] - begin_out) / slice;
    const index_type row = source_row(r, rows, perm);
    const index_type begin = row >= 0 ? ptr[row] : 0;
    const index_type len = row >= 0 ? ptr[row + 1] - begin : 0;
    const index_type pad_col =
        pad_minus_one ? -1
        : len > 0     ? col[begin + len - 1]
                      : static_cast<index_type>(min(row >= 0 ? std::int64_t{row} : r,
                                                    std::int64_t{cols} - 1));
    index_type* c = out_col + begin_out + l;
    V* v = out_val + begin_out + l;
    for (index_type k = 0; k < width; ++k) {
        *c = k < len ? col[begin + k] : pad_col;
        *v = k < len ? val[begin + k] : V(0);
        c += slice;
        v += slice;
    }
}

/// y = alpha A x + beta y with T threads per row. A warp holds 32 / T consecutive rows (in
/// slice order): lane = j * (32 / T) + r, so for every j the warp reads 32 / T consecutive
/// addresses of stored column k = j + i T. The T partial sums of a row meet through
/// __shfl_xor over the lane bits that hold j. Rows of a warp may straddle slices (small b).
template <int T, typename V>
__global__ void __launch_bounds__(block_size)
    sellp_spmv_kernel(index_type rows, index_type slice, const index_type* __restrict__ slice_ptr,
                      const index_type* __restrict__ col, const V* __restrict__ val,
                      const index_type* __restrict__ perm, V alpha, const V* __restrict__ x,
                      V beta, V* __restrict__ y)
{
    constexpr int rows_per_warp = 32 / T;
    const int lane = threadIdx.x % 32;
    const int j = lane / rows_per_warp;
    const std::int64_t r = global_thread() / 32 * rows_per_warp + lane % rows_per_warp;
    V sum = 0;
    if (r < rows) {
        const index_type s = static_cast<index_type>(r / slice);
        const index_type l = static_cast<index_type>(r - std::int64_t{s} * slice);
        const index_type begin = slice_ptr[s];
        const index_type iterations = (slice_ptr[s + 1] - begin) / slice / T;
        const std::int64_t step = std::int64_t{T} * slice;
        const index_type* c = col + begin + std::int64_t{j} * slice + l;
        const V* v = val + begin + std::int64_t{j} * slice + l;
#pragma unroll 4
        for (index_type i = 0; i < iterations; ++i) {
            sum += *v * __ldg(x + *c);
            c += step;
            v += step;
        }
    }
#pragma unroll
    for (int offset = 16; offset >= rows_per_warp; offset /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (j == 0 && r < rows) {
        const index_type row = perm != nullptr ? perm[r] : static_cast<index_type>(r);
        y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

template <int T, typename V>
void launch_spmv(const Sellp<V>& a, V alpha, const V* x, V beta, V* y, cudaStream_t stream)
{
    constexpr int rows_per_warp = 32 / T;
    const std::int64_t warps = (std::int64_t{a.rows} + rows_per_warp - 1) / rows_per_warp;
    sellp_spmv_kernel<T, V><<<grid_for(warps * 32), block_size, 0, stream>>>(
        a.rows, a.slice, a.slice_ptr.data(), a.col_idx.data(), a.values.data(),
        a.row_perm.empty() ? nullptr : a.row_perm.data(), alpha, x, beta, y);
}

}  // namespace

template <typename V>
void sellp_sort_rows(const Executor& exec, const Csr<V>& a, index_type sigma, index_type* perm)
{
    if (a.rows == 0) return;
    const ExecPtr& e = a.row_ptr.executor();
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const index_type windows = (a.rows - 1) / sigma + 1;
    Array<index_type> keys(e, a.rows), sorted_keys(e, a.rows), order(e, a.rows),
        window_ptr(e, static_cast<std::size_t>(windows) + 1);
    sort_inputs_kernel<<<grid_for(std::int64_t{a.rows} + 1), block_size, 0, stream>>>(
        a.rows, sigma, windows, a.row_ptr.data(), keys.data(), order.data(), window_ptr.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairsDescending(
        nullptr, temp_bytes, keys.data(), sorted_keys.data(), order.data(), perm, a.rows, windows,
        window_ptr.data(), window_ptr.data() + 1, stream));
    Array<char> temp(e, temp_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairsDescending(
        temp.data(), temp_bytes, keys.data(), sorted_keys.data(), order.data(), perm, a.rows,
        windows, window_ptr.data(), window_ptr.data() + 1, stream));
    exec.synchronize();  // the temporaries are freed on return
}

template <typename V>
std::int64_t sellp_slice_pointers(const Executor& exec, const Csr<V>& a, const index_type* perm,
                                  Sellp<V>& s)
{
    const ExecPtr& e = a.row_ptr.executor();
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const std::int64_t n = std::int64_t{s.num_slices} + 1;
    Array<std::int64_t> offsets(e, static_cast<std::size_t>(n));
    slice_sizes_kernel<<<grid_for(n), block_size, 0, stream>>>(
        a.rows, s.slice, s.threads, s.num_slices, a.row_ptr.data(), perm, offsets.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, offsets.data(), n, stream));
    Array<char> temp(e, temp_bytes);
    GPUFEM_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, offsets.data(), n, stream));
    std::int64_t total = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&total, offsets.data() + s.num_slices, sizeof(total),
                                      cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (total > std::numeric_limits<index_type>::max())
        throw std::overflow_error("SELL-P: " + std::to_string(total) +
                                  " padded entries do not fit 32-bit slice offsets");
    narrow_kernel<<<grid_for(n), block_size, 0, stream>>>(n, offsets.data(), s.slice_ptr.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    exec.synchronize();  // offsets is freed on return
    return total;
}

template <typename V>
void sellp_fill(const Executor& exec, const Csr<V>& a, const index_type* perm, Sellp<V>& s,
                SellpPadding padding)
{
    const std::int64_t padded_rows = std::int64_t{s.num_slices} * s.slice;
    if (padded_rows == 0 || s.entries == 0) return;
    sellp_fill_kernel<V><<<grid_for(padded_rows), block_size, 0,
                           static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.cols, s.slice, s.num_slices, a.row_ptr.data(), a.col_idx.data(),
        a.values.data(), perm, s.slice_ptr.data(), padding == SellpPadding::minus_one,
        s.col_idx.data(), s.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void sellp_spmv(const Executor& exec, const Sellp<V>& a, V alpha, const V* x, V beta, V* y)
{
    if (a.rows == 0) return;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    switch (a.threads) {
    case 1: launch_spmv<1>(a, alpha, x, beta, y, stream); break;
    case 2: launch_spmv<2>(a, alpha, x, beta, y, stream); break;
    case 4: launch_spmv<4>(a, alpha, x, beta, y, stream); break;
    case 8: launch_spmv<8>(a, alpha, x, beta, y, stream); break;
    case 16: launch_spmv<16>(a, alpha, x, beta, y, stream); break;
    case 32: launch_spmv<32>(a, alpha, x, beta, y, stream); break;
    default: throw std::invalid_argument("SELL-P: threads per row must be 1, 2, 4, 8, 16 or 32");
    }
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(sellp_sort_rows, sellp_slice_pointers, sellp_fill, sellp_spmv)

}  // namespace gpufem::kernels::cuda
