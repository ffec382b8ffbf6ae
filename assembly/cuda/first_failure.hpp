#pragma once
// The lowest failing index of a kernel's values (expression and boundary kernels): each thread
// whose value fails records its index with atomicMin; the host reads it once.
#include <climits>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"

namespace gpufem::cuda {

/// The lowest failing index a kernel recorded (with atomicMin), -1 for none.
class FirstFailure {
public:
    explicit FirstFailure(const Executor& exec) : exec_(exec), buffer_(exec, sizeof(unsigned long long))
    {
        GPUFEM_CUDA_CHECK(cudaMemsetAsync(buffer_.as<void>(), 0xFF, sizeof(unsigned long long),
                                          stream()));
    }
    unsigned long long* device() const { return buffer_.as<unsigned long long>(); }
    long long fetch() const
    {
        unsigned long long first = 0;
        GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&first, device(), sizeof(first), cudaMemcpyDeviceToHost,
                                          stream()));
        GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return first == ULLONG_MAX ? -1 : static_cast<long long>(first);
    }

private:
    cudaStream_t stream() const { return static_cast<cudaStream_t>(exec_.stream()); }
    const Executor& exec_;
    DeviceBuffer buffer_;
};

}  // namespace gpufem::cuda
