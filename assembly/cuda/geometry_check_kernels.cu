#include <climits>

#include "assembly/cuda/jacobian_tally.cuh"
#include "assembly/geometry_check_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 128;
/// Cells with at least this many points are checked by a warp each.
constexpr int warp_cell_points = 32;

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

}  // namespace

template <typename V>
JacobianSigns jacobian_signs(const Executor& exec, const ElementArgs<V>& a)
{
    JacobianSigns out;
    if (a.num_cells == 0) return out;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    const JacobianTally counters(exec);
    unsigned long long* tally = counters.data();
    // A thread per cell of few points; a warp per cell of many.
    const bool warps = a.num_points >= warp_cell_points;
    const long long per_block = warps ? block_size / 32 : block_size;
    const auto grid = static_cast<unsigned>((a.num_cells + per_block - 1) / per_block);
    dispatch_dimension(a.dim, [&]<int DIM>() {
        if (warps) jacobian_signs_warp_kernel<DIM, V><<<grid, block_size, 0, stream>>>(a, tally);
        else jacobian_signs_kernel<DIM, V><<<grid, block_size, 0, stream>>>(a, tally);
    });
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return counters.read();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(jacobian_signs)

}  // namespace gpufem::kernels::cuda
