#include "linalg/device_runtime.hpp"

#include <cuda_runtime.h>

#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::cuda {

bool is_built() { return true; }

int device_count()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no driver" error
        return 0;
    }
    return count;
}

std::string device_name(int device)
{
    cudaDeviceProp prop{};
    GPUFEM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
           std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs)";
}

int multiprocessor_count(int device)
{
    int count = 0;
    GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
}

void* create_stream(int device)
{
    GPUFEM_CUDA_CHECK(cudaSetDevice(device));
    cudaStream_t stream{};
    GPUFEM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return stream;
}

void destroy_stream(void* stream) noexcept { cudaStreamDestroy(static_cast<cudaStream_t>(stream)); }

void synchronize(void* stream)
{
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

void* malloc(int device, std::size_t bytes)
{
    GPUFEM_CUDA_CHECK(cudaSetDevice(device));
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error("CUDA out of memory: could not allocate " +
                                 std::to_string(bytes >> 20) + " MiB on device " +
                                 std::to_string(device));
    }
    return ptr;
}

void free(int, void* ptr) noexcept { cudaFree(ptr); }

void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes)
{
    GPUFEM_CUDA_CHECK(cudaSetDevice(device));
    GPUFEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void memcpy_to_device(void* dst, const void* src, std::size_t bytes, void* stream)
{
    auto s = static_cast<cudaStream_t>(stream);
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    // The host buffer may be freed right after: wait for the (pageable) copy.
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(s));
}

void memcpy_to_host(void* dst, const void* src, std::size_t bytes, void* stream)
{
    auto s = static_cast<cudaStream_t>(stream);
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(s));
}

void memcpy_device(void* dst, const void* src, std::size_t bytes, void* stream)
{
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                      static_cast<cudaStream_t>(stream)));
}

void memset_zero(void* dst, std::size_t bytes, void* stream)
{
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, static_cast<cudaStream_t>(stream)));
}

}  // namespace gpufem::cuda
