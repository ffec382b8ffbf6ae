#pragma once
// Executor: where data lives and kernels run (the CPU, or one CUDA device with its stream).
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gpufem {

/// Bytes held in an executor's memory through Executor::alloc: now, and the most at any
/// moment since the last Executor::reset_memory_peak.
struct MemoryUse {
    std::size_t current = 0;
    std::size_t peak = 0;
};

/// The two backends gpufem can run on.
enum class Backend { cpu, cuda };

/// Returns "cpu" or "cuda".
const char* backend_name(Backend backend);

/// An execution space: owns allocation, copies and (for CUDA) the stream kernels run on.
/// Passed explicitly to every kernel; data moves between executors only by explicit copies.
class Executor {
public:
    /// The host executor.
    static std::shared_ptr<const Executor> create_cpu();
    /// A CUDA device executor with its own stream; throws if CUDA is not built or absent.
    static std::shared_ptr<const Executor> create_cuda(int device = 0);
    /// Number of usable CUDA devices (0 when CUDA is not built or no driver/device is present).
    static int cuda_device_count();
    /// True when the CUDA backend was compiled in.
    static bool cuda_built();

    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    Backend backend() const { return backend_; }
    bool is_cuda() const { return backend_ == Backend::cuda; }
    int device_id() const { return device_; }
    /// Human-readable device name ("CPU (N threads)" or the CUDA device name).
    const std::string& device_name() const { return name_; }
    /// Parallel units: streaming multiprocessors of the CUDA device, hardware threads on the CPU.
    int compute_units() const { return compute_units_; }
    /// The cudaStream_t (as void*) kernels are launched on; nullptr for the CPU.
    void* stream() const { return stream_; }

    /// Allocates bytes in this executor's memory space (never managed memory).
    void* alloc(std::size_t bytes) const;
    /// Frees memory obtained from alloc.
    void free(void* ptr) const noexcept;
    /// What alloc holds now and its high-water mark (every device allocation of gpufem goes
    /// through alloc; libraries' own workspaces and the CUDA context do not).
    MemoryUse memory_use() const;
    /// Starts a new high-water mark at the current use.
    void reset_memory_peak() const;
    /// Free bytes of this executor's memory: the device's free memory for CUDA, the host's
    /// available memory (MemAvailable) for the CPU.
    std::size_t free_memory() const;
    /// Total bytes of this executor's memory (device memory, or the host's physical memory).
    std::size_t total_memory() const;
    /// Waits for all work queued on this executor.
    void synchronize() const;
    /// A scratch buffer of at least bytes in this executor's memory, reused across calls
    /// (reduction partials and the like). Its contents do not survive the next call.
    /// Not thread-safe: one host thread drives one executor.
    void* scratch(std::size_t bytes) const;

private:
    Executor(Backend backend, int device, std::string name, void* stream, int compute_units);
    Backend backend_;
    int device_;
    std::string name_;
    void* stream_;
    int compute_units_;
    mutable void* scratch_ = nullptr;
    mutable std::size_t scratch_bytes_ = 0;
    mutable std::mutex memory_mutex_;
    mutable std::unordered_map<void*, std::size_t> allocations_;
    mutable MemoryUse memory_;
};

using ExecPtr = std::shared_ptr<const Executor>;

/// Copies bytes between any two memory spaces (host<->device, device<->device).
/// Copies that end on the host are complete when this returns.
void copy_bytes(const Executor& dst_exec, void* dst, const Executor& src_exec, const void* src,
                std::size_t bytes);

/// Sets bytes at dst (memory of exec) to zero, ordered with exec's other work.
void zero_bytes(const Executor& exec, void* dst, std::size_t bytes);

}  // namespace gpufem
