#pragma once
// The times of a task's stages in one line, for the debug log ("read 0.120 s, numbered
// 0.031 s").
#include <chrono>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace gpufem {

/// Times consecutive stages from its construction on.
struct StageLaps {
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    std::string text;  ///< "stage 0.123 s, next 0.045 s"

    /// Ends the stage named `stage` (the next one starts now).
    void lap(const char* stage)
    {
        const auto now = std::chrono::steady_clock::now();
        text += fmt::format("{}{} {:.3f} s", text.empty() ? "" : ", ", stage,
                            std::chrono::duration<double>(now - last).count());
        last = now;
    }

    /// Ends the stage named `stage` once the executor's queued work is done, when the debug
    /// lines are on (the synchronisation only then, so that a run without them is not slowed).
    template <typename Executor>
    void lap_after(const Executor& exec, const char* stage)
    {
        if (!spdlog::should_log(spdlog::level::debug)) return;
        exec.synchronize();
        lap(stage);
    }
};

}  // namespace gpufem
