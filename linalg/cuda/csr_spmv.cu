#include "linalg/csr_kernels.hpp"

#include <algorithm>
#include <climits>

#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

template <typename V, typename O>
__global__ void __launch_bounds__(block_size)
    csr_spmv_scalar_kernel(index_type rows, const O* __restrict__ ptr,
                           const index_type* __restrict__ col, const V* __restrict__ val,
                           V alpha, const V* __restrict__ x, V beta, V* __restrict__ y)
{
    const index_type row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    V sum = 0;
    for (O k = ptr[row]; k < ptr[row + 1]; ++k) sum += val[k] * __ldg(x + col[k]);
    y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

template <typename V, typename O>
__global__ void __launch_bounds__(block_size)
    csr_diagonal_kernel(index_type rows, const O* __restrict__ ptr,
                        const index_type* __restrict__ col, const V* __restrict__ val,
                        V* __restrict__ d)
{
    const index_type row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    V diag = 0;
    for (O k = ptr[row]; k < ptr[row + 1]; ++k)
        if (col[k] == row) diag += val[k];
    d[row] = diag;
}

template <typename V, typename O>
void diagonal(const Executor& exec, const Csr<V, O>& a, V* d)
{
    if (a.rows == 0) return;
    const unsigned grid = (a.rows + block_size - 1) / block_size;
    csr_diagonal_kernel<<<grid, block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), d);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V, typename O>
void spmv(const Executor& exec, const Csr<V, O>& a, V alpha, const V* x, V beta, V* y)
{
    if (a.rows == 0) return;
    const unsigned grid = (a.rows + block_size - 1) / block_size;
    csr_spmv_scalar_kernel<<<grid, block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), alpha, x, beta, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

/// extremes[0] = min, extremes[1] = max of the row lengths (extremes start at INT_MAX, 0).
template <typename O>
__global__ void __launch_bounds__(block_size)
    row_length_extremes_kernel(index_type rows, const O* __restrict__ ptr, int* __restrict__ extremes)
{
    int low = INT_MAX, high = 0;
    for (long long row = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; row < rows;
         row += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int length = static_cast<int>(ptr[row + 1] - ptr[row]);
        low = min(low, length);
        high = max(high, length);
    }
    atomicMin(&extremes[0], low);
    atomicMax(&extremes[1], high);
}

template <typename V, typename O>
RowStats stats(const Executor& exec, const Csr<V, O>& a)
{
    RowStats s;
    if (a.rows == 0) return s;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const int start[2] = {INT_MAX, 0};
    int result[2];
    O total = 0;
    int* extremes = nullptr;
    GPUFEM_CUDA_CHECK(cudaMallocAsync(&extremes, sizeof(start), stream));
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(extremes, start, sizeof(start), cudaMemcpyHostToDevice, stream));
    const unsigned grid = static_cast<unsigned>(std::min<long long>((a.rows + block_size - 1) / block_size, 4096));
    row_length_extremes_kernel<<<grid, block_size, 0, stream>>>(a.rows, a.row_ptr.data(), extremes);
    GPUFEM_CUDA_CHECK_LAUNCH();
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(result, extremes, sizeof(result), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&total, a.row_ptr.data() + a.rows, sizeof(O), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaFreeAsync(extremes, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    s.min = result[0];
    s.max = result[1];
    s.mean = static_cast<double>(total) / a.rows;
    return s;
}

}  // namespace

template <typename V, typename O>
RowStats csr_row_stats(const Executor& exec, const Csr<V, O>& a)
{
    return stats(exec, a);
}

template <typename V, typename O>
void csr_diagonal(const Executor& exec, const Csr<V, O>& a, V* d)
{
    diagonal(exec, a, d);
}

template <typename V, typename O>
void csr_spmv(const Executor& exec, const Csr<V, O>& a, V alpha, const V* x, V beta, V* y)
{
    spmv(exec, a, alpha, x, beta, y);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(csr_spmv, csr_diagonal, csr_row_stats)

}  // namespace gpufem::kernels::cuda
