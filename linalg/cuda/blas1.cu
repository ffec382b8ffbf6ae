#include <algorithm>
#include <limits>

#include <cub/block/block_reduce.cuh>
#include <cuda/std/limits>

#include "linalg/blas1_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;
constexpr int max_reduce_blocks = 1024;

unsigned grid_for(std::size_t n)
{
    return static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 65535u * 16));
}

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

template <typename V>
__global__ void fill_kernel(std::size_t n, V value, V* __restrict__ x)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = value;
}

template <typename V>
__global__ void axpy_kernel(std::size_t n, V alpha, const V* __restrict__ x, V* __restrict__ y)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        y[i] += alpha * x[i];
}

template <typename V>
__global__ void xpay_kernel(std::size_t n, const V* __restrict__ x, V beta, V* __restrict__ y)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = x[i] + beta * y[i];
}

template <typename V>
__global__ void scale_kernel(std::size_t n, V alpha, V* __restrict__ x)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] *= alpha;
}

/// First stage: each block writes the partial dot product of its grid-stride share.
template <typename V>
__global__ void __launch_bounds__(block_size)
    dot_partial_kernel(std::size_t n, const V* __restrict__ x, const V* __restrict__ y,
                       double* __restrict__ partial)
{
    using BlockReduce = cub::BlockReduce<double, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    double sum = 0.0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        sum += static_cast<double>(x[i]) * y[i];
    sum = BlockReduce(storage).Sum(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

/// Second stage: one block sums the partials (fixed order: deterministic).
__global__ void __launch_bounds__(block_size) dot_final_kernel(int count, double* partial)
{
    using BlockReduce = cub::BlockReduce<double, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    double sum = 0.0;
    for (int i = threadIdx.x; i < count; i += block_size) sum += partial[i];
    sum = BlockReduce(storage).Sum(sum);
    if (threadIdx.x == 0) partial[count] = sum;
}

/// The NaN-propagating maximum (Largest) or minimum of two magnitudes, as a reduction
/// operator for cub; start: what an empty share gives.
template <bool Largest>
struct ExtremeNan {
    __device__ double operator()(double a, double b) const
    {
        return (isnan(a) || (Largest ? a > b : a < b)) ? a : b;
    }
    __device__ static double start() { return Largest ? 0.0 : ::cuda::std::numeric_limits<double>::infinity(); }
};

/// First stage of max_abs and min_abs: each block writes the extreme magnitude of its
/// grid-stride share.
template <bool Largest, typename V>
__global__ void __launch_bounds__(block_size)
    extreme_abs_partial_kernel(std::size_t n, const V* __restrict__ x, double* __restrict__ partial)
{
    using BlockReduce = cub::BlockReduce<double, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    const ExtremeNan<Largest> pick;
    double best = pick.start();
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        best = pick(fabs(static_cast<double>(x[i])), best);
    best = BlockReduce(storage).Reduce(best, pick);
    if (threadIdx.x == 0) partial[blockIdx.x] = best;
}

/// Second stage: one block combines the partial extremes.
template <bool Largest>
__global__ void __launch_bounds__(block_size) extreme_abs_final_kernel(int count, double* partial)
{
    using BlockReduce = cub::BlockReduce<double, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    const ExtremeNan<Largest> pick;
    double best = pick.start();
    for (int i = threadIdx.x; i < count; i += block_size) best = pick(partial[i], best);
    best = BlockReduce(storage).Reduce(best, pick);
    if (threadIdx.x == 0) partial[count] = best;
}

/// Blocks of a two-stage reduction over n entries.
int reduce_blocks(std::size_t n)
{
    return static_cast<int>(std::min<std::size_t>((n + block_size - 1) / block_size, max_reduce_blocks));
}

/// The partial results' buffer of a two-stage reduction (its total after the last block).
double* reduce_scratch(const Executor& exec)
{
    return static_cast<double*>(exec.scratch((max_reduce_blocks + 1) * sizeof(double)));
}

/// The total a two-stage reduction left at partial[blocks], read on the host.
double read_reduced(const Executor& exec, const double* partial, int blocks)
{
    GPUFEM_CUDA_CHECK_LAUNCH();
    double result = 0.0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&result, partial + blocks, sizeof(double),
                                      cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return result;
}

/// max |x| (Largest) or min |x| through the two-stage reduction; empty_value for n = 0.
template <bool Largest, typename V>
double extreme_abs_impl(const Executor& exec, std::size_t n, const V* x, double empty_value)
{
    if (n == 0) return empty_value;
    const int blocks = reduce_blocks(n);
    double* partial = reduce_scratch(exec);
    extreme_abs_partial_kernel<Largest><<<blocks, block_size, 0, stream_of(exec)>>>(n, x, partial);
    GPUFEM_CUDA_CHECK_LAUNCH();
    extreme_abs_final_kernel<Largest><<<1, block_size, 0, stream_of(exec)>>>(blocks, partial);
    return read_reduced(exec, partial, blocks);
}

template <typename V>
double dot_impl(const Executor& exec, std::size_t n, const V* x, const V* y)
{
    if (n == 0) return 0.0;
    const int blocks = reduce_blocks(n);
    double* partial = reduce_scratch(exec);
    dot_partial_kernel<<<blocks, block_size, 0, stream_of(exec)>>>(n, x, y, partial);
    GPUFEM_CUDA_CHECK_LAUNCH();
    dot_final_kernel<<<1, block_size, 0, stream_of(exec)>>>(blocks, partial);
    return read_reduced(exec, partial, blocks);
}

}  // namespace

#define GPUFEM_LAUNCH_ELEMENTWISE(kernel, n, ...)                                     \
    do {                                                                              \
        if ((n) == 0) return;                                                         \
        kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>((n), __VA_ARGS__);    \
        GPUFEM_CUDA_CHECK_LAUNCH();                                                   \
    } while (0)

template <typename V>
void fill(const Executor& exec, std::size_t n, V value, V* x)
{
    GPUFEM_LAUNCH_ELEMENTWISE(fill_kernel<V>, n, value, x);
}

template <typename V>
void axpy(const Executor& exec, std::size_t n, V alpha, const V* x, V* y)
{
    GPUFEM_LAUNCH_ELEMENTWISE(axpy_kernel<V>, n, alpha, x, y);
}

template <typename V>
void xpay(const Executor& exec, std::size_t n, const V* x, V beta, V* y)
{
    GPUFEM_LAUNCH_ELEMENTWISE(xpay_kernel<V>, n, x, beta, y);
}

template <typename V>
void scale(const Executor& exec, std::size_t n, V alpha, V* x)
{
    GPUFEM_LAUNCH_ELEMENTWISE(scale_kernel<V>, n, alpha, x);
}

template <typename V>
double dot(const Executor& exec, std::size_t n, const V* x, const V* y)
{
    return dot_impl(exec, n, x, y);
}

template <typename V>
double max_abs(const Executor& exec, std::size_t n, const V* x)
{
    return extreme_abs_impl<true>(exec, n, x, 0.0);
}

template <typename V>
double min_abs(const Executor& exec, std::size_t n, const V* x)
{
    return extreme_abs_impl<false>(exec, n, x, std::numeric_limits<double>::infinity());
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(fill, axpy, xpay, scale, dot, max_abs, min_abs)

}  // namespace gpufem::kernels::cuda
