#pragma once
// IntervalTimer: records many start/stop intervals without synchronising, read once at the end
// (CUDA events in the executor's stream on the GPU, a steady clock on the CPU).
#include <memory>
#include <vector>

#include "linalg/backend_kernels.hpp"
#include "linalg/executor.hpp"

namespace gpufem {

/// Times a sequence of intervals (e.g. one SpMV per solver iteration).
class IntervalTimer {
public:
    virtual ~IntervalTimer() = default;
    /// Marks the start of the next interval (queued in the stream on the GPU).
    virtual void start() = 0;
    /// Marks its end.
    virtual void stop() = 0;
    /// Seconds of every completed interval, in order (waits for the device once).
    virtual std::vector<double> seconds() const = 0;
    /// Short description of the clock ("CUDA events", "steady clock").
    virtual const char* clock() const = 0;
};

#define GPUFEM_KERNEL_LIST "linalg/interval_timer_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// The timer suited to exec.
std::unique_ptr<IntervalTimer> make_interval_timer(const ExecPtr& exec);

}  // namespace gpufem
