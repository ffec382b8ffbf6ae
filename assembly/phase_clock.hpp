#pragma once
// The wall clock of the assembly phases (AssemblyTimes): seconds from a start, once the work
// queued on the executor has finished.
#include <chrono>

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

}  // namespace gpufem
