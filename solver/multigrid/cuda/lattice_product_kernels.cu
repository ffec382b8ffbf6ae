// CUDA lattice product (solver/multigrid/lattice_product_kernels.hpp): one thread per row of
// C, its window's slots in thread-local memory; a count pass, CUB's scan, a fill pass.
#include <cstdint>
#include <stdexcept>

#include <cub/device/device_scan.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "solver/multigrid/lattice_product_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

__global__ void lattice_points_kernel(LatticeNumbering numbering, index_type count, std::uint64_t* points)
{
    const long long g = thread_index();
    if (g >= count) return;
    long long p[3];
    numbering.point(static_cast<index_type>(g), p);
    points[g] = packed_point(p);
}

/// Flags of the count pass.
struct WindowFlags {
    unsigned long long total;  ///< the entries of C (64 bits: a product past 2^31 is seen)
    int outside;               ///< 1 when a row does not fit its window
};

/// counts[r] = the columns of row r of C, their total and whether a row left its window
/// into *flags (the warp's sum added once).
template <typename V>
__global__ void window_count_kernel(index_type rows, const index_type* __restrict__ a_ptr,
                                    const index_type* __restrict__ a_col, const index_type* __restrict__ b_ptr,
                                    const index_type* __restrict__ b_col, const std::uint64_t* __restrict__ points,
                                    int dim, WindowCentre centre, index_type first, index_type* __restrict__ counts,
                                    WindowFlags* __restrict__ flags)
{
    const long long r = thread_index();
    unsigned mask = 0;
    if (r < rows) {
        const auto row = static_cast<index_type>(r);
        std::uint64_t middle = 0;
        bool fits = window_centre(row, centre, first, b_ptr, b_col, points, middle);
        if (fits)
            fits = window_row<V, false>(row, a_ptr, a_col, static_cast<const V*>(nullptr), b_ptr, b_col,
                                        static_cast<const V*>(nullptr), points, dim, middle, mask, nullptr, nullptr);
        else
            fits = a_ptr[r] == a_ptr[r + 1];
        if (!fits) flags->outside = 1;
        counts[r] = __popc(mask);
    }
    const unsigned warp_total = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(__popc(mask)));
    if ((threadIdx.x & 31) == 0 && warp_total > 0) atomicAdd(&flags->total, static_cast<unsigned long long>(warp_total));
}

/// Row r of C into c_col / c_val from c_ptr[r] (columns sorted).
template <typename V>
__global__ void window_fill_kernel(index_type rows, const index_type* __restrict__ a_ptr,
                                   const index_type* __restrict__ a_col, const V* __restrict__ a_val,
                                   const index_type* __restrict__ b_ptr, const index_type* __restrict__ b_col,
                                   const V* __restrict__ b_val, const std::uint64_t* __restrict__ points, int dim,
                                   WindowCentre centre, index_type first, const index_type* __restrict__ c_ptr,
                                   index_type* __restrict__ c_col, V* __restrict__ c_val)
{
    const long long r = thread_index();
    if (r >= rows) return;
    const auto row = static_cast<index_type>(r);
    std::uint64_t middle = 0;
    unsigned mask = 0;
    index_type keys[lattice_window_slots];
    V sums[lattice_window_slots];
    if (!window_centre(row, centre, first, b_ptr, b_col, points, middle)) return;
    window_row<V, true>(row, a_ptr, a_col, a_val, b_ptr, b_col, b_val, points, dim, middle, mask, keys, sums);
    write_window_row(mask, keys, sums, c_col + c_ptr[r], c_val + c_ptr[r]);
}

}  // namespace

void amg_lattice_points(const Executor& exec, LatticeNumbering numbering, index_type count, std::uint64_t* points)
{
    if (count == 0) return;
    lattice_points_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(numbering, count, points);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
bool amg_lattice_product(const Executor& exec, const Csr<V>& a, const Csr<V>& b, const std::uint64_t* points, int dim,
                         WindowCentre centre, index_type first, Csr<V>& c)
{
    const cudaStream_t stream = stream_of(exec);
    const index_type rows = a.rows;
    index_type* ptr = c.row_ptr.data();
    DeviceBuffer flags(exec, sizeof(WindowFlags));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(flags.as<void>(), 0, sizeof(WindowFlags), stream));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(ptr + rows, 0, sizeof(index_type), stream));
    if (rows > 0) {
        window_count_kernel<V><<<grid_for(rows), block_size, 0, stream>>>(
            rows, a.row_ptr.data(), a.col_idx.data(), b.row_ptr.data(), b.col_idx.data(), points, dim, centre, first,
            ptr, flags.as<WindowFlags>());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    WindowFlags host{};
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, flags.as<void>(), sizeof(WindowFlags), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host.outside) return false;
    if (host.total > 2147483647ULL)
        throw std::length_error("AMG: a Galerkin product has more than 2^31 - 1 non-zeros");
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, ptr, ptr, rows + 1, stream));
    {
        DeviceBuffer temp(exec, temp_bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), temp_bytes, ptr, ptr, rows + 1, stream));
    }
    const auto total = static_cast<index_type>(host.total);
    const ExecPtr& ex = a.executor();
    c.col_idx = Array<index_type>(ex, static_cast<std::size_t>(total));
    c.values = Array<V>(ex, static_cast<std::size_t>(total));
    if (rows > 0) {
        window_fill_kernel<V><<<grid_for(rows), block_size, 0, stream>>>(
            rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), b.row_ptr.data(), b.col_idx.data(),
            b.values.data(), points, dim, centre, first, ptr, c.col_idx.data(), c.values.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    return true;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(amg_lattice_product)

}  // namespace gpufem::kernels::cuda
