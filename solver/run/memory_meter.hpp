#pragma once
// What each phase of a run really used at its peak: the process's resident set on the host
// and gpufem's allocations on the executor (the device of a CUDA run); the oracle the memory
// estimate (memory_estimate.hpp) is checked against.
#include <cstddef>
#include <string>
#include <vector>

#include "linalg/executor.hpp"

namespace gpufem {

/// The peak memory of one phase of a run, in bytes.
struct PhaseMemory {
    std::string phase;            ///< "mesh", "assembly", "solve", "errors", "output"
    std::size_t host = 0;         ///< largest resident set of the process during the phase
    std::size_t device = 0;       ///< largest sum of the executor's allocations (CUDA runs; 0 on the CPU)
};

/// Measures phases one after the other: start() before a phase, stop(name) after it.
/// The host figure is the kernel's resident high-water mark, restarted at each start (where
/// the kernel does not allow the restart, later phases report the run's mark so far).
class MemoryMeter {
public:
    explicit MemoryMeter(ExecPtr exec) : exec_(std::move(exec)) {}
    /// Restarts both high-water marks.
    void start() const;
    /// Records the marks since start() as phase `name`.
    void stop(const std::string& name);
    /// Runs fn as phase `name` (recorded also when fn throws).
    template <typename Fn>
    auto measure(const std::string& name, Fn&& fn) -> decltype(fn())
    {
        start();
        struct Stop {
            MemoryMeter& meter;
            const std::string& name;
            ~Stop() { meter.stop(name); }
        } stop_at_exit{*this, name};
        return fn();
    }
    const std::vector<PhaseMemory>& phases() const { return phases_; }

private:
    ExecPtr exec_;
    std::vector<PhaseMemory> phases_;
};

}  // namespace gpufem
