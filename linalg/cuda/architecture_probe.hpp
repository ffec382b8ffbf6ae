#pragma once
// Whether a device can run this build's kernels (CUDA sources only).
#include <string>

#include <cuda_runtime.h>

namespace gpufem::cuda {

/// Looks up a kernel that does nothing, compiled for the same architectures as every other
/// kernel, on `device`: cudaSuccess when the build holds code (or PTX) the device runs,
/// otherwise the runtime's error (no kernel image for the device; PTX the driver cannot read).
cudaError_t probe_kernel_image(int device);

/// Looks `kernel` up on `device`: cudaSuccess when its image holds code (or PTX) the device runs.
template <typename Kernel>
cudaError_t probe_image_of(int device, Kernel* kernel)
{
    const cudaError_t set = cudaSetDevice(device);
    if (set != cudaSuccess) return set;
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, kernel);
}

/// The verdict on `device` from a probe's result: "" for cudaSuccess, otherwise the start-up
/// error naming the device, its compute capability and the architectures the probed kernel was
/// built for (`cmake_list`, CMake's list; `native`: chosen from the configuring machine's GPU).
std::string probe_verdict(int device, cudaError_t probe, const std::string& cmake_list, bool native);

}  // namespace gpufem::cuda
