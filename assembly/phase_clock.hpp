#pragma once
// The wall clock of the assembly phases (AssemblyTimes): seconds from a start, once the work
// queued on the executor has finished.
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "linalg/executor.hpp"

namespace gpufem {

/// The clock the assembly phases are timed with.
using phase_clock = std::chrono::steady_clock;

/// Seconds since start after waiting for exec's queued work.
inline double phase_seconds(const Executor& exec, phase_clock::time_point start)
{
    exec.synchronize();
    return std::chrono::duration<double>(phase_clock::now() - start).count();
}

/// Laps of a build's steps for a debug line ("cells ordered 0.012 s, assembly 0.085 s, ..."):
/// each lap the seconds since the previous one, after exec's queued work.
class StepLaps {
public:
    explicit StepLaps(const Executor& exec) : exec_(exec), start_(phase_clock::now()) {}
    /// Ends the current step under this name.
    void operator()(const char* step)
    {
        text_ += fmt::format("{}{} {:.3f} s", text_.empty() ? "" : ", ", step, phase_seconds(exec_, start_));
        start_ = phase_clock::now();
    }
    /// The steps so far.
    const std::string& text() const { return text_; }

private:
    const Executor& exec_;
    phase_clock::time_point start_;
    std::string text_;
};

}  // namespace gpufem
