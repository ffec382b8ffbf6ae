// Device symmetric permutation of CSR matrices (B = P A P^T) and of vectors.
//   1. inverse permutation           (one thread per row)
//   2. new row lengths into b_ptr    (one thread per row), b_ptr[n] = 0
//   3. in-place exclusive scan       (cub::DeviceScan::ExclusiveSum) -> b_ptr
//   4. copy rows, relabel columns    (one warp per row, coalesced within the row)
//   5. sort columns within each row  (cub::DeviceSegmentedSort::SortPairs, rows as segments)
#include <cstdint>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"
#include "linalg/reordering_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

using gpufem::cuda::DeviceBuffer;

unsigned grid_for(std::int64_t threads)
{
    return static_cast<unsigned>((threads + block_size - 1) / block_size);
}

__global__ void __launch_bounds__(block_size)
    inverse_and_lengths_kernel(index_type n, const index_type* __restrict__ perm,
                               const index_type* __restrict__ a_ptr,
                               index_type* __restrict__ inverse, index_type* __restrict__ b_ptr)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    if (i == n) {
        b_ptr[n] = 0;  // the exclusive scan turns this into nnz
        return;
    }
    const index_type old = perm[i];
    inverse[old] = i;
    b_ptr[i] = a_ptr[old + 1] - a_ptr[old];
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    copy_rows_kernel(index_type n, const index_type* __restrict__ perm,
                     const index_type* __restrict__ inverse, const index_type* __restrict__ a_ptr,
                     const index_type* __restrict__ a_col, const V* __restrict__ a_val,
                     const index_type* __restrict__ b_ptr, index_type* __restrict__ out_col,
                     V* __restrict__ out_val)
{
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const index_type row = static_cast<index_type>(thread / 32);
    const int lane = threadIdx.x % 32;
    if (row >= n) return;
    const index_type old = perm[row];
    const index_type src = a_ptr[old];
    const index_type len = a_ptr[old + 1] - src;
    const index_type dst = b_ptr[row];
    for (index_type k = lane; k < len; k += 32) {
        out_col[dst + k] = inverse[a_col[src + k]];
        out_val[dst + k] = a_val[src + k];
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    permute_vector_kernel(index_type n, const index_type* __restrict__ perm,
                          const V* __restrict__ x, V* __restrict__ y, bool inverse)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (inverse)
        y[perm[i]] = x[i];
    else
        y[i] = x[perm[i]];
}

}  // namespace

template <typename V>
void permute_symmetric(const Executor& exec, const Csr<V>& a, const index_type* perm,
                       index_type* b_ptr, index_type* b_col, V* b_val)
{
    const index_type n = a.rows;
    const std::int64_t nnz = static_cast<std::int64_t>(a.nnz());
    auto stream = static_cast<cudaStream_t>(exec.stream());

    DeviceBuffer inverse(exec, static_cast<std::size_t>(n) * sizeof(index_type));
    inverse_and_lengths_kernel<<<grid_for(std::int64_t{n} + 1), block_size, 0, stream>>>(
        n, perm, a.row_ptr.data(), inverse.as<index_type>(), b_ptr);
    GPUFEM_CUDA_CHECK_LAUNCH();

    std::size_t scan_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, b_ptr, n + 1, stream));
    {
        DeviceBuffer scan_temp(exec, scan_bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.as<void>(), scan_bytes, b_ptr,
                                                        n + 1, stream));
    }
    if (n == 0 || nnz == 0) return;

    // Unsorted rows go to temporaries; the segmented sort writes the final arrays.
    DeviceBuffer tmp_col(exec, static_cast<std::size_t>(nnz) * sizeof(index_type));
    DeviceBuffer tmp_val(exec, static_cast<std::size_t>(nnz) * sizeof(V));
    copy_rows_kernel<V><<<grid_for(std::int64_t{n} * 32), block_size, 0, stream>>>(
        n, perm, inverse.as<index_type>(), a.row_ptr.data(), a.col_idx.data(), a.values.data(),
        b_ptr, tmp_col.as<index_type>(), tmp_val.as<V>());
    GPUFEM_CUDA_CHECK_LAUNCH();

    std::size_t sort_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
        nullptr, sort_bytes, tmp_col.as<const index_type>(), b_col, tmp_val.as<const V>(), b_val,
        nnz, n, b_ptr, b_ptr + 1, stream));
    DeviceBuffer sort_temp(exec, sort_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
        sort_temp.as<void>(), sort_bytes, tmp_col.as<const index_type>(), b_col,
        tmp_val.as<const V>(), b_val, nnz, n, b_ptr, b_ptr + 1, stream));
    // The temporaries are freed on return: finish the work that reads them first.
    exec.synchronize();
}

template <typename V>
void permute_vector(const Executor& exec, index_type n, const index_type* perm, const V* x, V* y,
                    bool inverse)
{
    if (n == 0) return;
    permute_vector_kernel<V><<<grid_for(n), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        n, perm, x, y, inverse);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(permute_symmetric, permute_vector)

}  // namespace gpufem::kernels::cuda
