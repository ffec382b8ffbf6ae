#pragma once
// The launch shape most element-wise kernels use: blocks of 256 threads, one thread per item,
// 64-bit item indices; and the shape of kernels that give each item (a cell of many points or
// nodes) a warp (CUDA sources only).

namespace gpufem::cuda {

/// Threads per block.
inline constexpr int block_size = 256;

/// Blocks of block_size threads that cover n threads.
inline unsigned grid_for(long long n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

/// This thread's item index.
__device__ inline long long thread_index() { return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; }

/// Items per block when each item has a warp.
inline constexpr int warp_items_per_block = block_size / 32;

/// Blocks of block_size threads that give each of n items a warp.
inline unsigned warp_grid_for(long long n)
{
    return static_cast<unsigned>((n + warp_items_per_block - 1) / warp_items_per_block);
}

/// This warp's item index (the same on its 32 lanes).
__device__ inline long long warp_index()
{
    return blockIdx.x * static_cast<long long>(warp_items_per_block) + threadIdx.x / 32;
}

/// This thread's lane in its warp.
__device__ inline int lane_index() { return static_cast<int>(threadIdx.x % 32); }

/// The sum of v over the warp's 32 lanes, on every lane (all lanes must call it).
__device__ inline double warp_sum(double v)
{
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

}  // namespace gpufem::cuda
