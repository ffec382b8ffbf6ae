#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "assembly/csr_pattern.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

unsigned grid_for(std::size_t n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

/// One key row*n+col per local entry (i, j) of every cell.
__global__ void pair_keys_kernel(std::size_t num_entries, int npe, std::uint64_t n,
                                 const index_type* __restrict__ cells, std::uint64_t* __restrict__ keys)
{
    const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (k >= num_entries) return;
    const std::size_t e = k / (npe * npe);
    const int local = static_cast<int>(k % (npe * npe));
    const index_type row = cells[e * npe + local / npe];
    const index_type col = cells[e * npe + local % npe];
    keys[k] = static_cast<std::uint64_t>(row) * n + col;
}

/// col_idx from keys; row_ptr[r] = first key >= r*n (lower bound), r = 0..rows.
__global__ void split_keys_kernel(index_type nnz, index_type rows, std::uint64_t n,
                                  const std::uint64_t* __restrict__ keys,
                                  index_type* __restrict__ col_idx, index_type* __restrict__ row_ptr)
{
    const index_type t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nnz) col_idx[t] = static_cast<index_type>(keys[t] % n);
    if (t <= rows) {
        const std::uint64_t target = static_cast<std::uint64_t>(t) * n;
        index_type lo = 0, hi = nnz;
        while (lo < hi) {
            const index_type mid = lo + (hi - lo) / 2;
            if (keys[mid] < target) lo = mid + 1; else hi = mid;
        }
        row_ptr[t] = lo;
    }
}

/// Position of each local entry (i, j) in the CSR arrays: binary search in the row.
__global__ void cell_to_csr_kernel(std::size_t num_entries, int npe,
                                   const index_type* __restrict__ cells,
                                   const index_type* __restrict__ row_ptr,
                                   const index_type* __restrict__ col_idx,
                                   index_type* __restrict__ pos)
{
    const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (k >= num_entries) return;
    const std::size_t e = k / (npe * npe);
    const int local = static_cast<int>(k % (npe * npe));
    const index_type row = cells[e * npe + local / npe];
    const index_type col = cells[e * npe + local % npe];
    index_type lo = row_ptr[row], hi = row_ptr[row + 1];
    while (lo < hi) {
        const index_type mid = lo + (hi - lo) / 2;
        if (col_idx[mid] < col) lo = mid + 1; else hi = mid;
    }
    pos[k] = lo;
}

int bits_needed(std::uint64_t max_value)
{
    int bits = 1;
    while (bits < 64 && (max_value >> bits) != 0) ++bits;
    return bits;
}

}  // namespace

CsrPattern build_csr_pattern(const ExecPtr& exec, index_type num_nodes,
                             const Array<index_type>& cells, int npe)
{
    auto stream = static_cast<cudaStream_t>(exec->stream());
    const std::size_t num_cells = cells.size() / npe;
    const std::size_t entries = num_cells * npe * npe;
    const std::uint64_t n = static_cast<std::uint64_t>(num_nodes);

    Array<std::uint64_t> keys(exec, entries), sorted(exec, entries);
    if (entries > 0) {
        pair_keys_kernel<<<grid_for(entries), block_size, 0, stream>>>(entries, npe, n, cells.data(),
                                                                       keys.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    const int end_bit = bits_needed(n * n > 0 ? n * n - 1 : 0);

    // Sort, then unique (into keys), with one temporary buffer sized for both.
    std::size_t sort_bytes = 0, unique_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys.data(), sorted.data(),
                                                     entries, 0, end_bit, stream));
    Array<index_type> count(exec, 1);
    GPUFEM_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_bytes, sorted.data(), keys.data(),
                                                count.data(), entries, stream));
    Array<char> temp(exec, std::max(sort_bytes, unique_bytes));
    GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), sort_bytes, keys.data(),
                                                     sorted.data(), entries, 0, end_bit, stream));
    GPUFEM_CUDA_CHECK(cub::DeviceSelect::Unique(temp.data(), unique_bytes, sorted.data(), keys.data(),
                                                count.data(), entries, stream));
    const index_type nnz = count.to_host()[0];
    sorted = Array<std::uint64_t>();  // free before the remaining allocations
    temp = Array<char>();

    CsrPattern pattern;
    pattern.rows = num_nodes;
    pattern.row_ptr = Array<index_type>(exec, num_nodes + 1);
    pattern.col_idx = Array<index_type>(exec, nnz);
    pattern.cell_to_csr = Array<index_type>(exec, entries);
    split_keys_kernel<<<grid_for(std::max<std::size_t>(nnz, num_nodes + 1)), block_size, 0, stream>>>(
        nnz, num_nodes, n, keys.data(), pattern.col_idx.data(), pattern.row_ptr.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    if (entries > 0) {
        cell_to_csr_kernel<<<grid_for(entries), block_size, 0, stream>>>(
            entries, npe, cells.data(), pattern.row_ptr.data(), pattern.col_idx.data(),
            pattern.cell_to_csr.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    exec->synchronize();  // keys is freed on return
    return pattern;
}

}  // namespace gpufem::kernels::cuda
