#include "linalg/executor.hpp"
#include "linalg/device_preparation.hpp"
#include "linalg/host_threads.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "linalg/device_runtime.hpp"
#include "linalg/host_memory.hpp"

namespace gpufem {

std::string cuda::allocations_since(const AllocationTally& before)
{
    const AllocationTally now = allocation_tally();
    return fmt::format("{} ({:.3f} s), frees {} ({:.3f} s)", now.allocations - before.allocations,
                       now.allocation_seconds - before.allocation_seconds, now.frees - before.frees,
                       now.free_seconds - before.free_seconds);
}

const char* backend_name(Backend backend)
{
    return backend == Backend::cuda ? "cuda" : "cpu";
}

Executor::Executor(Backend backend, int device, std::string name, void* stream,
                   int compute_units)
    : backend_(backend), device_(device), name_(std::move(name)), stream_(stream),
      compute_units_(compute_units)
{}

Executor::~Executor()
{
    free(scratch_);
    if (stream_ != nullptr) cuda::destroy_stream(stream_);
}

void* Executor::scratch(std::size_t bytes) const
{
    if (bytes > scratch_bytes_) {
        synchronize();  // queued kernels may still use the old buffer
        free(scratch_);
        scratch_ = nullptr;
        scratch_bytes_ = 0;
        scratch_ = alloc(bytes);
        scratch_bytes_ = bytes;
    }
    return scratch_;
}

std::shared_ptr<const Executor> Executor::create_cpu()
{
    const int threads = host_threads();
    return std::shared_ptr<const Executor>(
        new Executor(Backend::cpu, -1, fmt::format("CPU ({} threads)", threads), nullptr, threads));
}

std::shared_ptr<const Executor> Executor::create_cuda(int device)
{
    if (!cuda::is_built()) throw std::runtime_error("gpufem was built without CUDA");
    const int count = cuda::device_count();
    if (device < 0 || device >= count) {
        throw std::runtime_error(
            fmt::format("CUDA device {} requested but {} device(s) are present", device, count));
    }
    if (const std::string reason = cuda::unusable_reason(device); !reason.empty())
        throw std::runtime_error(reason);
    void* stream = cuda::create_stream(device);
    cuda::warm_memory_pool(device);
    cuda::prepare_host_copies(device);
    return std::shared_ptr<const Executor>(new Executor(
        Backend::cuda, device, cuda::device_name(device), stream, cuda::multiprocessor_count(device)));
}

bool Executor::cuda_built() { return cuda::is_built(); }

void prepare_cuda_device(int device)
{
    const int cuda_device_count = Executor::cuda_device_count();
    if (device < 0 || device >= cuda_device_count) return;
    cuda::unusable_reason(device);  // the context, and the verdict create_cuda reads back
    cuda::warm_memory_pool(device);
    cuda::prepare_host_copies(device);
}

int Executor::cuda_device_count()
{
    return cuda::is_built() ? cuda::device_count() : 0;
}

void* Executor::alloc(std::size_t bytes) const
{
    if (bytes == 0) return nullptr;
    void* ptr = nullptr;
    if (is_cuda()) {
        ptr = cuda::malloc(device_, bytes, stream_);
    } else {
        ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (ptr == nullptr) throw std::bad_alloc();
    }
    const std::lock_guard lock(memory_mutex_);
    allocations_.emplace(ptr, bytes);
    memory_.current += bytes;
    memory_.peak = std::max(memory_.peak, memory_.current);
    return ptr;
}

void Executor::free(void* ptr) const noexcept
{
    if (ptr == nullptr) return;
    {
        const std::lock_guard lock(memory_mutex_);
        const auto found = allocations_.find(ptr);
        if (found != allocations_.end()) {
            memory_.current -= found->second;
            allocations_.erase(found);
        }
    }
    if (is_cuda()) {
        cuda::free(device_, ptr, stream_);
    } else {
        std::free(ptr);
    }
}

MemoryUse Executor::memory_use() const
{
    const std::lock_guard lock(memory_mutex_);
    return memory_;
}

void Executor::reset_memory_peak() const
{
    const std::lock_guard lock(memory_mutex_);
    memory_.peak = memory_.current;
}

std::size_t Executor::free_memory() const
{
    if (!is_cuda()) return available_host_bytes();
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda::memory_info(device_, free_bytes, total_bytes);
    return free_bytes;
}

std::size_t Executor::total_memory() const
{
    if (!is_cuda()) return physical_host_bytes();
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda::memory_info(device_, free_bytes, total_bytes);
    return total_bytes;
}

void Executor::synchronize() const
{
    if (is_cuda()) cuda::synchronize(stream_);
}

void copy_bytes(const Executor& dst_exec, void* dst, const Executor& src_exec, const void* src,
                std::size_t bytes)
{
    if (bytes == 0) return;
    if (!dst_exec.is_cuda() && !src_exec.is_cuda()) {
        std::memcpy(dst, src, bytes);
    } else if (dst_exec.is_cuda() && !src_exec.is_cuda()) {
        cuda::memcpy_to_device(dst, src, bytes, dst_exec.stream());
    } else if (!dst_exec.is_cuda() && src_exec.is_cuda()) {
        cuda::memcpy_to_host(dst, src, bytes, src_exec.stream());
    } else if (dst_exec.stream() == src_exec.stream()) {
        cuda::memcpy_device(dst, src, bytes, dst_exec.stream());
    } else {
        // Between two executors' streams: after the source's writes, and done before the
        // source may free its memory (in its own stream's order) for another allocation.
        src_exec.synchronize();
        cuda::memcpy_device(dst, src, bytes, dst_exec.stream());
        dst_exec.synchronize();
    }
}

void zero_bytes(const Executor& exec, void* dst, std::size_t bytes)
{
    if (bytes == 0) return;
    if (exec.is_cuda()) {
        cuda::memset_zero(dst, bytes, exec.stream());
    } else {
        std::memset(dst, 0, bytes);
    }
}

}  // namespace gpufem
