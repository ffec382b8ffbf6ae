#include "linalg/device_runtime.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "linalg/cuda/architecture_probe.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda_architectures.hpp"

// CMake's CUDA architecture list this file was compiled with (every kernel is), and whether
// CMake took it from the configuring machine's GPU (native).
#ifndef GPUFEM_CUDA_ARCHITECTURES
#define GPUFEM_CUDA_ARCHITECTURES ""
#endif
#ifndef GPUFEM_CUDA_ARCHITECTURES_NATIVE
#define GPUFEM_CUDA_ARCHITECTURES_NATIVE 0
#endif

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

std::string built_architectures() { return describe_cuda_architectures(GPUFEM_CUDA_ARCHITECTURES); }

std::string runtime_versions()
{
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    cudaGetLastError();
    const auto version = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
    return "runtime " + version(runtime) + ", driver " + (driver > 0 ? version(driver) : std::string("none"));
}

std::string probe_verdict(int device, cudaError_t probe, const std::string& cmake_list, bool native)
{
    if (probe == cudaSuccess) return "";
    cudaGetLastError();  // not sticky, but leave no error behind
    cudaDeviceProp prop{};
    std::string verdict;
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
        verdict = unusable_gpu_message(device, prop.name, prop.major, prop.minor, cmake_list, native,
                                       std::string("CUDA: ") + cudaGetErrorString(probe));
    else
        verdict = fmt::format("GPU {} cannot run gpufem's kernels (CUDA: {})", device, cudaGetErrorString(probe));
    cudaGetLastError();
    return verdict;
}

std::string unusable_reason(int device)
{
    static std::mutex mutex;
    static std::map<int, std::string> reasons;
    const std::lock_guard lock(mutex);
    if (const auto found = reasons.find(device); found != reasons.end()) return found->second;
    const std::string reason = probe_verdict(device, probe_kernel_image(device), GPUFEM_CUDA_ARCHITECTURES,
                                             GPUFEM_CUDA_ARCHITECTURES_NATIVE != 0);
    reasons[device] = reason;
    return reason;
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

namespace {

/// The running totals behind allocation_tally().
struct Tally {
    std::atomic<long long> allocations{0}, frees{0}, allocation_ns{0}, free_ns{0};
};
Tally& tally()
{
    static Tally t;
    return t;
}

long long nanoseconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

/// The pools kept_pool has set up, by device (release_pooled_memory trims them).
struct KeptPools {
    std::mutex mutex;
    std::map<int, cudaMemPool_t> pools;
};

KeptPools& kept_pools()
{
    static KeptPools kept;
    return kept;
}

/// The device's default memory pool, set to keep the memory freed into it (a release threshold
/// above any device's size) once per process.
cudaMemPool_t kept_pool(int device)
{
    KeptPools& kept = kept_pools();
    const std::lock_guard lock(kept.mutex);
    if (const auto found = kept.pools.find(device); found != kept.pools.end()) return found->second;
    cudaMemPool_t pool{};
    GPUFEM_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t keep = UINT64_MAX;
    GPUFEM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    kept.pools[device] = pool;
    return pool;
}

}  // namespace

void warm_memory_pool(int device)
{
    static std::mutex mutex;
    static std::map<int, std::future<void>> warming;  // finished long before the process ends
    const std::lock_guard lock(mutex);
    if (warming.count(device)) return;
    warming[device] = std::async(std::launch::async, [device] {
        if (cudaSetDevice(device) != cudaSuccess) return;
        kept_pool(device);  // the pool keeps what is freed into it: the first allocation sets it up
        cudaStream_t stream{};
        if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return;
        void* first = nullptr;
        if (cudaMallocAsync(&first, std::size_t{1} << 20, stream) == cudaSuccess) cudaFreeAsync(first, stream);
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
        cudaGetLastError();
    });
}

namespace {

/// cudaMallocAsync, and once more after the pool handed its unused memory back (a large array
/// may not fit among the pieces it keeps).
cudaError_t pool_allocation(int device, void** ptr, std::size_t bytes, cudaStream_t stream)
{
    const cudaMemPool_t pool = kept_pool(device);
    if (cudaMallocAsync(ptr, bytes, stream) == cudaSuccess) return cudaSuccess;
    cudaGetLastError();
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    GPUFEM_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    return cudaMallocAsync(ptr, bytes, stream);
}

/// The allocations made outside the pool (during a capture), which cudaFree frees.
struct UnpooledAllocations {
    std::mutex mutex;
    std::set<void*> pointers;
};
UnpooledAllocations& unpooled()
{
    static UnpooledAllocations u;
    return u;
}

}  // namespace

void* malloc(int device, std::size_t bytes, void* stream)
{
    const auto start = std::chrono::steady_clock::now();
    GPUFEM_CUDA_CHECK(cudaSetDevice(device));
    const auto s = static_cast<cudaStream_t>(stream);
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (s != nullptr) GPUFEM_CUDA_CHECK(cudaStreamIsCapturing(s, &capture));
    const bool pooled = s != nullptr && capture == cudaStreamCaptureStatusNone;
    void* ptr = nullptr;
    const cudaError_t err = pooled ? pool_allocation(device, &ptr, bytes, s) : cudaMalloc(&ptr, bytes);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error("CUDA out of memory: could not allocate " +
                                 std::to_string(bytes >> 20) + " MiB on device " +
                                 std::to_string(device));
    }
    if (!pooled) {
        const std::lock_guard lock(unpooled().mutex);
        unpooled().pointers.insert(ptr);
    }
    tally().allocations += 1;
    tally().allocation_ns += nanoseconds_since(start);
    return ptr;
}

void free(int, void* ptr, void* stream) noexcept
{
    const auto start = std::chrono::steady_clock::now();
    bool pooled = true;
    {
        const std::lock_guard lock(unpooled().mutex);
        pooled = unpooled().pointers.erase(ptr) == 0;
    }
    if (pooled) cudaFreeAsync(ptr, static_cast<cudaStream_t>(stream));
    else cudaFree(ptr);
    tally().frees += 1;
    tally().free_ns += nanoseconds_since(start);
}

AllocationTally allocation_tally()
{
    const Tally& t = tally();
    return {t.allocations.load(), t.frees.load(), 1e-9 * static_cast<double>(t.allocation_ns.load()),
            1e-9 * static_cast<double>(t.free_ns.load())};
}

void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes)
{
    GPUFEM_CUDA_CHECK(cudaSetDevice(device));
    GPUFEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // What the pool keeps unused is free to gpufem's next allocations.
    std::uint64_t reserved = 0, used = 0;
    const cudaMemPool_t pool = kept_pool(device);
    GPUFEM_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    GPUFEM_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    if (reserved > used) free_bytes += static_cast<std::size_t>(reserved - used);
}

namespace {

/// Copies of at least this many bytes to or from the host go through staging_buffers (below, the
/// driver's pageable copy is as fast).
constexpr std::size_t staged_copy_min_bytes = std::size_t{1} << 20;
/// Size of each staging buffer, and of the chunks a staged copy moves through them: small
/// enough that the host copy of one chunk overlaps the transfer of the next on copies of a
/// few tens of MB (a mesh's cells, a solution), large enough for the full PCIe rate.
constexpr std::size_t staging_chunk_bytes = std::size_t{16} << 20;

/// Two pinned host buffers of staging_chunk_bytes with an event each, kept for the process
/// (one copy through them at a time). Pinning costs milliseconds, so prepare_host_copies
/// starts it in the background when the executor's stream is made; the first copy waits for it.
struct StagingBuffers {
    std::mutex mutex;
    std::future<void> pinning;  ///< the background pinning, if started and not yet awaited
    void* buffer[2] = {nullptr, nullptr};
    cudaEvent_t ready[2] = {nullptr, nullptr};

    /// Pins the buffers (on the calling thread); device: the one whose events they use. Sets
    /// nothing unless all four succeed.
    void pin(int device)
    {
        GPUFEM_CUDA_CHECK(cudaSetDevice(device));
        void* pinned[2] = {nullptr, nullptr};
        cudaEvent_t events[2] = {nullptr, nullptr};
        cudaError_t err = cudaSuccess;
        for (int b = 0; b < 2 && err == cudaSuccess; ++b) {
            err = cudaHostAlloc(&pinned[b], staging_chunk_bytes, cudaHostAllocPortable);
            if (err == cudaSuccess) err = cudaEventCreateWithFlags(&events[b], cudaEventDisableTiming);
        }
        if (err != cudaSuccess) {
            for (int b = 0; b < 2; ++b) {
                if (pinned[b]) cudaFreeHost(pinned[b]);
                if (events[b]) cudaEventDestroy(events[b]);
            }
            GPUFEM_CUDA_CHECK(err);
        }
        for (int b = 0; b < 2; ++b) {
            buffer[b] = pinned[b];
            ready[b] = events[b];
        }
    }

    /// Ready buffers (called with the mutex held): waits for the background pinning, or pins
    /// now. A failure of the background pinning is reported here.
    void make()
    {
        if (pinning.valid()) pinning.get();
        if (buffer[0]) return;
        int device = 0;
        GPUFEM_CUDA_CHECK(cudaGetDevice(&device));
        pin(device);
    }
};

StagingBuffers& staging_buffers()
{
    static StagingBuffers buffers;  // never freed: the CUDA context outlives no static
    return buffers;
}

/// memcpy by the host threads, in 1 MiB blocks (the destination's first-touch page faults
/// are taken by all threads instead of one).
void parallel_memcpy(char* dst, const char* src, std::size_t bytes)
{
    constexpr std::size_t block = std::size_t{1} << 20;
    const long long blocks = static_cast<long long>((bytes + block - 1) / block);
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < blocks; ++b) {
        const std::size_t offset = static_cast<std::size_t>(b) * block;
        std::memcpy(dst + offset, src + offset, std::min(block, bytes - offset));
    }
}

/// A copy of fewer than staged_copy_min_bytes made directly and waited for (the host buffer
/// may be freed right after); false, and nothing done, for a larger one.
bool copied_unstaged(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s)
{
    if (bytes >= staged_copy_min_bytes) return false;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(s));
    return true;
}

}  // namespace

void prepare_host_copies(int device)
{
    StagingBuffers& staging = staging_buffers();
    const std::lock_guard lock(staging.mutex);
    if (staging.buffer[0] || staging.pinning.valid()) return;
    staging.pinning = std::async(std::launch::async, [&staging, device] { staging.pin(device); });
}

void memcpy_to_device(void* dst, const void* src, std::size_t bytes, void* stream)
{
    auto s = static_cast<cudaStream_t>(stream);
    if (copied_unstaged(dst, src, bytes, cudaMemcpyHostToDevice, s)) return;
    // A large upload from pageable memory (a part's mesh: a gigabyte) goes through the driver's
    // small pinned buffers on one thread; here the host threads fill one pinned buffer with
    // chunk i while the other's chunk i - 1 travels.
    StagingBuffers& staging = staging_buffers();
    const std::lock_guard lock(staging.mutex);
    staging.make();
    auto* out = static_cast<char*>(dst);
    const auto* in = static_cast<const char*>(src);
    const std::size_t chunks = (bytes + staging_chunk_bytes - 1) / staging_chunk_bytes;
    for (std::size_t i = 0; i < chunks; ++i) {
        const std::size_t offset = i * staging_chunk_bytes, length = std::min(staging_chunk_bytes, bytes - offset);
        auto* buffer = static_cast<char*>(staging.buffer[i % 2]);
        if (i >= 2) GPUFEM_CUDA_CHECK(cudaEventSynchronize(staging.ready[i % 2]));  // chunk i - 2 has left it
        parallel_memcpy(buffer, in + offset, length);
        GPUFEM_CUDA_CHECK(cudaMemcpyAsync(out + offset, buffer, length, cudaMemcpyHostToDevice, s));
        GPUFEM_CUDA_CHECK(cudaEventRecord(staging.ready[i % 2], s));
    }
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(s));  // the buffers are free for the next copy
}

void memcpy_to_host(void* dst, const void* src, std::size_t bytes, void* stream)
{
    auto s = static_cast<cudaStream_t>(stream);
    if (copied_unstaged(dst, src, bytes, cudaMemcpyDeviceToHost, s)) return;
    // A large copy to pageable memory: the driver copies it through its own small pinned
    // buffers on one thread, taking the destination's page faults as it goes (about 1.2 GB/s
    // into fresh memory on the H100 host). Here chunk i arrives in one pinned buffer while the
    // host threads copy chunk i - 1 out of the other.
    StagingBuffers& staging = staging_buffers();
    const std::lock_guard lock(staging.mutex);
    staging.make();
    auto* out = static_cast<char*>(dst);
    const auto* in = static_cast<const char*>(src);
    const std::size_t chunks = (bytes + staging_chunk_bytes - 1) / staging_chunk_bytes;
    const auto length = [&](std::size_t i) { return std::min(staging_chunk_bytes, bytes - i * staging_chunk_bytes); };
    for (std::size_t i = 0; i <= chunks; ++i) {
        if (i < chunks) {
            GPUFEM_CUDA_CHECK(cudaMemcpyAsync(staging.buffer[i % 2], in + i * staging_chunk_bytes,
                                              length(i), cudaMemcpyDeviceToHost, s));
            GPUFEM_CUDA_CHECK(cudaEventRecord(staging.ready[i % 2], s));
        }
        if (i > 0) {
            const std::size_t previous = i - 1;
            GPUFEM_CUDA_CHECK(cudaEventSynchronize(staging.ready[previous % 2]));
            parallel_memcpy(out + previous * staging_chunk_bytes,
                            static_cast<const char*>(staging.buffer[previous % 2]), length(previous));
        }
    }
}

void memcpy_device(void* dst, const void* src, std::size_t bytes, void* stream)
{
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                      static_cast<cudaStream_t>(stream)));
}

void release_pooled_memory() noexcept
{
    KeptPools& kept = kept_pools();
    const std::lock_guard lock(kept.mutex);
    for (const auto& [device, pool] : kept.pools) {
        if (cudaSetDevice(device) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) continue;
        cudaMemPoolTrimTo(pool, 0);
    }
    cudaGetLastError();  // a failure here leaves the memory to the process's end
}

void memset_zero(void* dst, std::size_t bytes, void* stream)
{
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, static_cast<cudaStream_t>(stream)));
}

}  // namespace gpufem::cuda
