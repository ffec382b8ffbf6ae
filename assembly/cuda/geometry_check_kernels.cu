#include <climits>

#include "assembly/geometry_check_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 128;

/// tally: positive count, negative count, first positive, first negative, first bad point.
template <int DIM, typename V>
__global__ void jacobian_signs_kernel(ElementArgs<V> a, unsigned long long* tally)
{
    const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (e >= a.num_cells) return;
    int bad_point = -1;
    const int sign = cell_jacobian_sign<DIM>(a, e, bad_point);
    const auto cell = static_cast<unsigned long long>(e);
    if (sign > 0) {
        atomicAdd(tally + 0, 1ULL);
        atomicMin(tally + 2, cell);
    } else if (sign < 0) {
        atomicAdd(tally + 1, 1ULL);
        atomicMin(tally + 3, cell);
    } else {
        atomicMin(tally + 4, cell * a.num_points + bad_point);
    }
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
    const auto grid = static_cast<unsigned>((a.num_cells + block_size - 1) / block_size);
    dispatch_dimension(a.dim, [&]<int DIM>() {
        jacobian_signs_kernel<DIM, V><<<grid, block_size, 0, stream>>>(a, tally);
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
