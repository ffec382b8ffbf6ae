#include "linalg/cuda/architecture_probe.hpp"

namespace gpufem::cuda {
namespace {

__global__ void architecture_probe_kernel() {}

}  // namespace

cudaError_t probe_kernel_image(int device)
{
    const cudaError_t set = cudaSetDevice(device);
    if (set != cudaSuccess) return set;
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, architecture_probe_kernel);
}

}  // namespace gpufem::cuda
