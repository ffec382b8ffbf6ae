#pragma once
// A kernel compiled only for mismatched_probe_architectures, looked up on a device.
#include <cuda_runtime.h>

namespace gpufem::test {

/// The CMake architecture list mismatched_probe.cu is compiled for.
inline constexpr const char* mismatched_probe_architectures = "80-real";

/// Looks the sm_80-only kernel up on `device` (as probe_kernel_image does with gpufem's own):
/// cudaErrorNoKernelImageForDevice on a GPU outside the sm_8x family.
cudaError_t probe_mismatched_image(int device);

}  // namespace gpufem::test
