#include <climits>

#include "assembly/geometry_check_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 128;
/// Cells with at least this many points are checked by a warp each.
constexpr int warp_cell_points = 32;

/// Counts cell e's sign class into tally (see jacobian_signs_kernel).
__device__ inline void tally_cell(long long e, int sign, int bad_point, int num_points, unsigned long long* tally)
{
    const auto cell = static_cast<unsigned long long>(e);
    if (sign > 0) {
        atomicAdd(tally + 0, 1ULL);
        atomicMin(tally + 2, cell);
    } else if (sign < 0) {
        atomicAdd(tally + 1, 1ULL);
        atomicMin(tally + 3, cell);
    } else {
        atomicMin(tally + 4, cell * num_points + bad_point);
    }
}

/// jacobian_signs_kernel's tally with a warp per cell, its lanes taking every 32nd point (cells of many points: a
/// degree-8 hexahedron has 729, each Jacobian a sum over 729 nodes). A point is bad where det
/// J is zero, not finite or of another sign than at point 0; the first bad point wins.
template <int DIM, typename V>
__global__ void jacobian_signs_warp_kernel(ElementArgs<V> a, unsigned long long* tally)
{
    const long long e = blockIdx.x * static_cast<long long>(blockDim.x / 32) + threadIdx.x / 32;
    if (e >= a.num_cells) return;  // whole warps leave together
    const int lane = threadIdx.x % 32;
    const int first = __shfl_sync(0xffffffffu, lane == 0 ? point_jacobian_sign<DIM>(a, e, 0) : 0, 0);
    int bad = INT_MAX;
    for (int q = lane; q < a.num_points && bad == INT_MAX; q += 32) {
        const int s = point_jacobian_sign<DIM>(a, e, q);
        if (s == 0 || s != first) bad = q;
    }
    for (int offset = 16; offset > 0; offset /= 2) bad = min(bad, __shfl_down_sync(0xffffffffu, bad, offset));
    if (lane == 0) tally_cell(e, bad == INT_MAX ? first : 0, bad, a.num_points, tally);
}

/// tally: positive count, negative count, first positive, first negative, first bad point.
template <int DIM, typename V>
__global__ void jacobian_signs_kernel(ElementArgs<V> a, unsigned long long* tally)
{
    const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (e >= a.num_cells) return;
    int bad_point = -1;
    const int sign = cell_jacobian_sign<DIM>(a, e, bad_point);
    tally_cell(e, sign, bad_point, a.num_points, tally);
}

long long first_or_none(unsigned long long v) { return v == ULLONG_MAX ? -1 : static_cast<long long>(v); }

}  // namespace

template <typename V>
JacobianSigns jacobian_signs(const Executor& exec, const ElementArgs<V>& a)
{
    JacobianSigns out;
    if (a.num_cells == 0) return out;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    gpufem::cuda::DeviceBuffer buffer(exec, 5 * sizeof(unsigned long long));
    unsigned long long host[5] = {0, 0, ULLONG_MAX, ULLONG_MAX, ULLONG_MAX};
    auto* tally = buffer.as<unsigned long long>();
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(tally, host, sizeof(host), cudaMemcpyHostToDevice, stream));
    // A thread per cell of few points; a warp per cell of many.
    const bool warps = a.num_points >= warp_cell_points;
    const long long per_block = warps ? block_size / 32 : block_size;
    const auto grid = static_cast<unsigned>((a.num_cells + per_block - 1) / per_block);
    dispatch_dimension(a.dim, [&]<int DIM>() {
        if (warps) jacobian_signs_warp_kernel<DIM, V><<<grid, block_size, 0, stream>>>(a, tally);
        else jacobian_signs_kernel<DIM, V><<<grid, block_size, 0, stream>>>(a, tally);
    });
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(host, tally, sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    out.positive = static_cast<long long>(host[0]);
    out.negative = static_cast<long long>(host[1]);
    out.first_positive = first_or_none(host[2]);
    out.first_negative = first_or_none(host[3]);
    out.first_degenerate = first_or_none(host[4]);
    return out;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(jacobian_signs)

}  // namespace gpufem::kernels::cuda
