#pragma once
// DeviceBuffer: temporary device memory for the duration of one kernel call (CUDA sources).
#include <cstddef>

#include "linalg/executor.hpp"

namespace gpufem::cuda {

/// Temporary device memory from the executor's allocator, freed on scope exit.
class DeviceBuffer {
public:
    DeviceBuffer(const Executor& exec, std::size_t bytes)
        : exec_(exec), ptr_(bytes > 0 ? exec.alloc(bytes) : nullptr)
    {}
    ~DeviceBuffer() { exec_.free(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    /// The memory as T*.
    template <typename T>
    T* as() const
    {
        return static_cast<T*>(ptr_);
    }

private:
    const Executor& exec_;
    void* ptr_;
};

}  // namespace gpufem::cuda
