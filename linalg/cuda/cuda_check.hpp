#pragma once
// Error checking for CUDA runtime, cuSPARSE and kernel launches (CUDA sources only).
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

namespace gpufem::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file,
                                          int line)
{
    throw std::runtime_error(std::string("CUDA error '") + cudaGetErrorString(err) + "' in " +
                             expr + " at " + file + ":" + std::to_string(line));
}

}  // namespace gpufem::cuda

#define GPUFEM_CUDA_CHECK(expr)                                                         \
    do {                                                                                \
        const cudaError_t gpufem_err_ = (expr);                                         \
        if (gpufem_err_ != cudaSuccess)                                                 \
            ::gpufem::cuda::throw_cuda_error(gpufem_err_, #expr, __FILE__, __LINE__);   \
    } while (0)

/// Checks the launch that just happened (configuration errors; asynchronous faults surface
/// at the next synchronising call).
#define GPUFEM_CUDA_CHECK_LAUNCH() GPUFEM_CUDA_CHECK(cudaGetLastError())
