#include "linalg/cuda/architecture_probe.hpp"

namespace gpufem::cuda {
namespace {

__global__ void architecture_probe_kernel() {}

}  // namespace

cudaError_t probe_kernel_image(int device) { return probe_image_of(device, architecture_probe_kernel); }

}  // namespace gpufem::cuda
