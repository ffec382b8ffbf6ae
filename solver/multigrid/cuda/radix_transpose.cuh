#pragma once
// gpufem's own CSR transpose on CUDA (AMG's restriction R = P^T): the entries' positions
// sorted by column with CUB's stable radix sort (stable: within a column the rows stay
// increasing, so the result's rows are sorted and the same every run), the row offsets of
// the transpose from the sorted columns, then the row indices and values gathered.
// Only the CUDA translation unit of the AMG kernels includes this file.
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>

#include "linalg/csr.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"

namespace gpufem::kernels::cuda::radix_transpose {

inline constexpr int threads = 256;

inline unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + threads - 1) / threads); }

/// row_of[k] = the row of entry k; position[k] = k.
__global__ void rows_of_entries_kernel(index_type rows, const index_type* __restrict__ ptr,
                                       index_type* __restrict__ row_of, index_type* __restrict__ position)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        row_of[k] = i;
        position[k] = k;
    }
}

/// t_ptr[c] = the first sorted entry whose column is >= c, for c in (column[p-1], column[p]]
/// (p = 0: from column 0; p = nnz: up to cols).
__global__ void offsets_from_sorted_kernel(index_type nnz, index_type cols, const index_type* __restrict__ sorted,
                                           index_type* __restrict__ t_ptr)
{
    const index_type p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p > nnz) return;
    const index_type before = p == 0 ? -1 : sorted[p - 1];
    const index_type here = p == nnz ? cols : sorted[p];
    for (index_type c = before + 1; c <= here; ++c) t_ptr[c] = p;
}

/// The transpose's columns (the original rows) and values in sorted order.
template <typename V>
__global__ void gather_kernel(index_type nnz, const index_type* __restrict__ order,
                              const index_type* __restrict__ row_of, const V* __restrict__ values,
                              index_type* __restrict__ t_col, V* __restrict__ t_val)
{
    const index_type p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nnz) return;
    const index_type k = order[p];
    t_col[p] = row_of[k];
    t_val[p] = values[k];
}

/// The number of bits that hold 0..count-1.
inline int bits_for(index_type count)
{
    int bits = 1;
    while (bits < 31 && (index_type(1) << bits) < count) ++bits;
    return bits;
}

/// t = a^T (t's arrays allocated: cols + 1 offsets, nnz columns and values).
template <typename V>
void transpose(const Executor& exec, const Csr<V>& a, Csr<V>& t)
{
    using gpufem::cuda::DeviceBuffer;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    const index_type nnz = static_cast<index_type>(a.nnz());
    DeviceBuffer row_of(exec, a.nnz() * sizeof(index_type));
    DeviceBuffer position(exec, a.nnz() * sizeof(index_type));
    DeviceBuffer sorted(exec, a.nnz() * sizeof(index_type));
    DeviceBuffer order(exec, a.nnz() * sizeof(index_type));
    rows_of_entries_kernel<<<blocks_for(a.rows), threads, 0, stream>>>(a.rows, a.row_ptr.data(),
                                                                      row_of.as<index_type>(),
                                                                      position.as<index_type>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    const int bits = bits_for(a.cols);
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, a.col_idx.data(), sorted.as<index_type>(),
                                                      position.as<const index_type>(), order.as<index_type>(),
                                                      nnz, 0, bits, stream));
    {
        DeviceBuffer temp(exec, bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.as<void>(), bytes, a.col_idx.data(),
                                                          sorted.as<index_type>(), position.as<const index_type>(),
                                                          order.as<index_type>(), nnz, 0, bits, stream));
        offsets_from_sorted_kernel<<<blocks_for(static_cast<std::int64_t>(nnz) + 1), threads, 0, stream>>>(
            nnz, a.cols, sorted.as<index_type>(), t.row_ptr.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
        gather_kernel<V><<<blocks_for(nnz), threads, 0, stream>>>(nnz, order.as<index_type>(), row_of.as<index_type>(),
                                                                  a.values.data(), t.col_idx.data(), t.values.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
        exec.synchronize();  // before the buffers go
    }
}

}  // namespace gpufem::kernels::cuda::radix_transpose
