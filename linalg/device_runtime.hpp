#pragma once
// Thin CUDA runtime wrappers used by the executor. Implemented in cuda/device_runtime.cpp,
// or by cuda_stub.cpp (throwing "built without CUDA") when CUDA is not built.
#include <cstddef>
#include <string>

namespace gpufem::cuda {

/// True when the CUDA backend was compiled in.
bool is_built();
/// Number of visible CUDA devices (0 if the driver or device is missing).
int device_count();
/// Name of a device, with its compute capability.
std::string device_name(int device);
/// Number of streaming multiprocessors of a device.
int multiprocessor_count(int device);
/// Creates a non-blocking stream on the device.
void* create_stream(int device);
void destroy_stream(void* stream) noexcept;
void synchronize(void* stream);
/// Device memory of bytes, ordered in stream: from the device's memory pool, which keeps what
/// is freed for the next allocations instead of handing it back to the driver (cudaMalloc and
/// cudaFree wait for the whole device and map or unmap pages: about a millisecond each for a
/// large array, the better part of a multigrid setup's time). While stream is being captured
/// into a graph, a plain cudaMalloc.
void* malloc(int device, std::size_t bytes, void* stream);
/// Frees memory from malloc, in stream order when it came from the pool.
void free(int device, void* ptr, void* stream) noexcept;
/// How many device allocations and frees this process made, and the seconds they took on the
/// host (a pool that grows maps new memory): the debug log's account of a run and of a setup.
struct AllocationTally {
    long long allocations = 0, frees = 0;
    double allocation_seconds = 0.0, free_seconds = 0.0;
};
AllocationTally allocation_tally();
/// "N (x s), frees M (y s)": the allocations and frees since `before` (by default: all).
std::string allocations_since(const AllocationTally& before = {});
/// Copy kinds follow the two executors involved; host-destined copies are synchronous.
void memcpy_to_device(void* dst, const void* src, std::size_t bytes, void* stream);
void memcpy_to_host(void* dst, const void* src, std::size_t bytes, void* stream);
/// Starts pinning, in the background, the host buffers through which large copies to and from
/// the host go (the first such copy waits for it); once per process, later calls do nothing.
void prepare_host_copies(int device);
/// Sets up the device's memory pool on a thread of its own (its first allocation costs 11-13
/// ms on an H200), beside the run's first host work rather than inside its first array; once
/// per device and process. Failures are left for the allocations that follow to report.
void warm_memory_pool(int device);
void memcpy_device(void* dst, const void* src, std::size_t bytes, void* stream);
/// Sets bytes of device memory to zero (ordered in the stream).
void memset_zero(void* dst, std::size_t bytes, void* stream);
/// Hands the memory the process's pools keep (freed arrays) back to the devices, after their
/// queued work: other processes see it free. Nothing where no pool was made.
void release_pooled_memory() noexcept;
/// Free and total memory of a device in bytes (cudaMemGetInfo).
void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes);
/// Why a device cannot run this build's kernels (its compute capability is not among the
/// architectures built, or its driver is too old for their PTX), naming both; "" when it can.
/// A kernel compiled as every other is looked up on the device, once per device and process
/// (this makes the device's CUDA context).
std::string unusable_reason(int device);
/// The architectures this build's kernels were compiled for, in words ("sm_80, sm_90 and PTX
/// compute_90"); "" without CUDA.
std::string built_architectures();
/// The CUDA runtime's and the driver's versions ("runtime 13.0, driver 13.0"); "" without CUDA.
std::string runtime_versions();

}  // namespace gpufem::cuda
