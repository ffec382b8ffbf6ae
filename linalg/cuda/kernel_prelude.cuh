#pragma once
// What the kernel files of the CUDA backend (namespace gpufem::kernels::cuda) use by their
// short names: the element-wise launch shape, temporary device memory, and the stream an
// executor's work is ordered on (CUDA sources only; a file that defines its own launch shape
// does not include this).
#include <cuda_runtime.h>

#include "linalg/cuda/device_buffer.hpp"
#include "linalg/cuda/launch_shape.cuh"
#include "linalg/executor.hpp"

namespace gpufem::cuda {

/// The CUDA stream exec's work is ordered on.
inline cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

}  // namespace gpufem::cuda

namespace gpufem::kernels::cuda {

using gpufem::cuda::block_size;
using gpufem::cuda::DeviceBuffer;
using gpufem::cuda::grid_for;
using gpufem::cuda::lane_index;
using gpufem::cuda::stream_of;
using gpufem::cuda::thread_index;
using gpufem::cuda::warp_grid_for;
using gpufem::cuda::warp_index;
using gpufem::cuda::warp_sum;

}  // namespace gpufem::kernels::cuda
