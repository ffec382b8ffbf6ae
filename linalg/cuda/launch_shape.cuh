#pragma once
// The launch shape most element-wise kernels use: blocks of 256 threads, one thread per item,
// 64-bit item indices (CUDA sources only).

namespace gpufem::cuda {

/// Threads per block.
inline constexpr int block_size = 256;

/// Blocks of block_size threads that cover n threads.
inline unsigned grid_for(long long n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

/// This thread's item index.
__device__ inline long long thread_index() { return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; }

}  // namespace gpufem::cuda
