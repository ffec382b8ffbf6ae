#include <algorithm>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/precision.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

unsigned grid_for(std::size_t n)
{
    return static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 65535u * 16));
}

template <typename From, typename To>
__global__ void convert_kernel(std::size_t n, const From* __restrict__ x, To* __restrict__ y)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = static_cast<To>(x[i]);
}

template <typename From, typename To>
void convert(const Executor& exec, std::size_t n, const From* x, To* y)
{
    if (n == 0) return;
    convert_kernel<From, To><<<grid_for(n), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(n, x, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

void round_to_float(const Executor& exec, std::size_t n, const double* x, float* y) { convert(exec, n, x, y); }

void widen_to_double(const Executor& exec, std::size_t n, const float* x, double* y) { convert(exec, n, x, y); }

}  // namespace gpufem::kernels::cuda
