#pragma once
// Whether a device can run this build's kernels (CUDA sources only).
#include <cuda_runtime.h>

namespace gpufem::cuda {

/// Looks up a kernel that does nothing, compiled for the same architectures as every other
/// kernel, on `device`: cudaSuccess when the build holds code (or PTX) the device runs,
/// otherwise the runtime's error (no kernel image for the device; PTX the driver cannot read).
cudaError_t probe_kernel_image(int device);

}  // namespace gpufem::cuda
