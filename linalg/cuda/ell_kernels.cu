// ELLPACK(-R) on the device: the conversion from CSR (row lengths, CUB max-reduction for the
// width, a scatter kernel writing the padded column-major arrays) and the SpMV (one thread
// per row, coalesced column-major reads, x through the read-only cache).
#include <algorithm>
#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/fused_product.cuh"
#include "linalg/ell.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;
static_assert(block_size == ell_dot_rows, "a block's rows make one partial of the fused dot");

unsigned grid_for(std::int64_t threads)
{
    return static_cast<unsigned>((threads + block_size - 1) / block_size);
}

__global__ void __launch_bounds__(block_size)
    row_lengths_kernel(index_type rows, const index_type* __restrict__ ptr,
                       index_type* __restrict__ row_len)
{
    const index_type row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) row_len[row] = ptr[row + 1] - ptr[row];
}

/// One thread per padded row: its entries go to k * stride + row, so a warp writes 32
/// consecutive addresses per k.
template <typename V>
__global__ void __launch_bounds__(block_size)
    ell_fill_kernel(index_type rows, index_type cols, index_type width, index_type stride,
                    const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                    const V* __restrict__ val, index_type* __restrict__ ell_col,
                    V* __restrict__ ell_val)
{
    const index_type row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= stride) return;
    const index_type begin = row < rows ? ptr[row] : 0;
    const index_type len = row < rows ? ptr[row + 1] - begin : 0;
    const index_type pad_col = len > 0 ? col[begin + len - 1] : min(row, cols - 1);
    index_type* out_col = ell_col + row;
    V* out_val = ell_val + row;
    for (index_type k = 0; k < width; ++k) {
        *out_col = k < len ? col[begin + k] : pad_col;
        *out_val = k < len ? val[begin + k] : V(0);
        out_col += stride;
        out_val += stride;
    }
}

/// Row row of A x: its stored entries (to its length with ELLPACK-R, else the full width:
/// padding multiplies by 0), column-major, x through the read-only cache.
template <bool RowLengths, typename V>
__device__ V row_sum(index_type row, index_type width, index_type stride, const index_type* __restrict__ col,
                     const V* __restrict__ val, const index_type* __restrict__ row_len, const V* __restrict__ x)
{
    const index_type len = RowLengths ? row_len[row] : width;
    const index_type* c = col + row;
    const V* v = val + row;
    V sum = 0;
#pragma unroll 4
    for (index_type k = 0; k < len; ++k) {
        sum += *v * __ldg(x + *c);
        c += stride;
        v += stride;
    }
    return sum;
}

/// y = alpha A x + beta y, one thread per row; with row lengths (ELLPACK-R) the loop stops
/// at the row's length, otherwise it runs over the full width (padding multiplies by 0).
template <bool RowLengths, typename V>
__global__ void __launch_bounds__(block_size)
    ell_spmv_kernel(index_type rows, index_type width, index_type stride,
                    const index_type* __restrict__ col, const V* __restrict__ val,
                    const index_type* __restrict__ row_len, V alpha, const V* __restrict__ x,
                    V beta, V* __restrict__ y)
{
    const index_type row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const V sum = row_sum<RowLengths>(row, width, stride, col, val, row_len, x);
    y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/// The product fused with the dot (y = A x, the block's sum of x_i y_i) or with CG's direction
/// (x = z, y = q: p = z + b p, q = A z + b q, the block's sum of p_i q_i), the block's sum to
/// partials[blockIdx.x].
template <bool RowLengths, Fused F, typename V>
__global__ void __launch_bounds__(block_size)
    ell_spmv_fused_kernel(index_type rows, index_type width, index_type stride,
                          const index_type* __restrict__ col, const V* __restrict__ val,
                          const index_type* __restrict__ row_len, const V* __restrict__ x, V* __restrict__ y,
                          FusedTail<V> tail)
{
    const index_type row = blockIdx.x * blockDim.x + threadIdx.x;
    double product = 0;
    if (row < rows)
        product = fused_row(F, tail, x, y, row, row_sum<RowLengths>(row, width, stride, col, val, row_len, x));
    using BlockReduce = cub::BlockReduce<double, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    const double total = BlockReduce(storage).Sum(product);
    if (threadIdx.x == 0) tail.partials[blockIdx.x] = total;
}

/// Launches ell_spmv_fused_kernel<., F> for the layout (with or without row lengths).
template <Fused F, typename V>
void launch_fused(const Executor& exec, const Ell<V>& a, const V* x, V* y, const FusedTail<V>& tail)
{
    if (a.rows == 0) return;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    if (a.with_lengths)
        ell_spmv_fused_kernel<true, F, V><<<grid_for(a.rows), block_size, 0, stream>>>(
            a.rows, a.width, a.stride, a.col_idx.data(), a.values.data(), a.row_len.data(), x, y, tail);
    else
        ell_spmv_fused_kernel<false, F, V><<<grid_for(a.rows), block_size, 0, stream>>>(
            a.rows, a.width, a.stride, a.col_idx.data(), a.values.data(), nullptr, x, y, tail);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename V>
index_type ell_row_lengths(const Executor& exec, const Csr<V>& a, index_type* row_len)
{
    if (a.rows == 0) return 0;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    row_lengths_kernel<<<grid_for(a.rows), block_size, 0, stream>>>(a.rows, a.row_ptr.data(),
                                                                     row_len);
    GPUFEM_CUDA_CHECK_LAUNCH();
    Array<index_type> width(a.row_ptr.executor(), 1);
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(
        cub::DeviceReduce::Max(nullptr, temp_bytes, row_len, width.data(), a.rows, stream));
    Array<char> temp(a.row_ptr.executor(), temp_bytes);
    GPUFEM_CUDA_CHECK(
        cub::DeviceReduce::Max(temp.data(), temp_bytes, row_len, width.data(), a.rows, stream));
    return width.to_host()[0];  // waits for the reduction
}

template <typename V>
void ell_fill(const Executor& exec, const Csr<V>& a, Ell<V>& ell)
{
    if (ell.stride == 0 || ell.width == 0) return;
    ell_fill_kernel<V><<<grid_for(ell.stride), block_size, 0,
                         static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.cols, ell.width, ell.stride, a.row_ptr.data(), a.col_idx.data(),
        a.values.data(), ell.col_idx.data(), ell.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void ell_spmv(const Executor& exec, const Ell<V>& a, V alpha, const V* x, V beta, V* y)
{
    if (a.rows == 0) return;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    if (a.with_lengths) {
        ell_spmv_kernel<true, V><<<grid_for(a.rows), block_size, 0, stream>>>(
            a.rows, a.width, a.stride, a.col_idx.data(), a.values.data(), a.row_len.data(),
            alpha, x, beta, y);
    } else {
        ell_spmv_kernel<false, V><<<grid_for(a.rows), block_size, 0, stream>>>(
            a.rows, a.width, a.stride, a.col_idx.data(), a.values.data(), nullptr, alpha, x,
            beta, y);
    }
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void ell_spmv_dot(const Executor& exec, const Ell<V>& a, const V* x, V* y, double* partials)
{
    launch_fused<Fused::dot>(exec, a, x, y, FusedTail<V>{partials});
}

template <typename V>
void ell_spmv_direction(const Executor& exec, const Ell<V>& a, const V* z, const double* beta, V* p, V* q,
                        double* partials)
{
    launch_fused<Fused::direction>(exec, a, z, q, FusedTail<V>{partials, p, beta});
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(ell_row_lengths, ell_fill, ell_spmv, ell_spmv_dot, ell_spmv_direction)

}  // namespace gpufem::kernels::cuda
