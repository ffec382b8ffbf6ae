#pragma once
// The Jacobian check's counters on the device, shared by the check's own kernels
// (geometry_check_kernels.cu) and pa's point factors, which find det J anyway (pa_kernels.cu):
// positive cells, negative cells, the first positive, the first negative, the first bad point.
#include <climits>

#include "assembly/geometry_check_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"

namespace gpufem::kernels::cuda {

/// Counts cell e's sign class (+1, -1, or 0 with its first bad point) into tally.
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

/// The five counters in device memory on exec's stream, set to no cells counted.
class JacobianTally {
public:
    explicit JacobianTally(const Executor& exec) : exec_(exec), buffer_(exec, sizeof(start_))
    {
        GPUFEM_CUDA_CHECK(cudaMemcpyAsync(data(), start_, sizeof(start_), cudaMemcpyHostToDevice, stream()));
    }
    /// The counters, for the kernels.
    unsigned long long* data() const { return buffer_.as<unsigned long long>(); }
    /// What the kernels queued before counted (waits for the stream).
    JacobianSigns read() const
    {
        unsigned long long host[5];
        GPUFEM_CUDA_CHECK(cudaMemcpyAsync(host, data(), sizeof(host), cudaMemcpyDeviceToHost, stream()));
        GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream()));
        JacobianSigns out;
        out.positive = static_cast<long long>(host[0]);
        out.negative = static_cast<long long>(host[1]);
        out.first_positive = first_or_none(host[2]);
        out.first_negative = first_or_none(host[3]);
        out.first_degenerate = first_or_none(host[4]);
        return out;
    }

private:
    static long long first_or_none(unsigned long long v) { return v == ULLONG_MAX ? -1 : static_cast<long long>(v); }
    cudaStream_t stream() const { return static_cast<cudaStream_t>(exec_.stream()); }

    unsigned long long start_[5] = {0, 0, ULLONG_MAX, ULLONG_MAX, ULLONG_MAX};
    const Executor& exec_;
    gpufem::cuda::DeviceBuffer buffer_;
};

}  // namespace gpufem::kernels::cuda
