#pragma once
// Progress on long work: a status line on stderr (phase, fraction, elapsed, ETA, and what the
// phase says of itself, e.g. the solver's iteration, residual and rate) for any phase that
// runs longer than about 2 s — only when stderr is a terminal and not under --quiet; piped
// or quiet runs keep the one summary line per phase.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gpufem {

/// When and where progress lines are drawn (process-wide; set once by main).
struct ProgressSettings {
    bool enabled = false;     ///< draw at all (stderr is a terminal and not --quiet)
    double delay = 2.0;       ///< seconds a phase runs before its line appears
    double interval = 0.25;   ///< seconds between redraws
    std::FILE* stream = stderr;
};

/// Sets the process's progress settings.
void set_progress_settings(const ProgressSettings& settings);

/// The process's progress settings.
const ProgressSettings& progress_settings();

/// settings for this process: enabled when stderr is a terminal and not quiet;
/// GPUFEM_PROGRESS_DELAY (seconds) overrides the delay.
ProgressSettings terminal_progress_settings(bool quiet);

/// What a phase reports of itself when its line is drawn.
struct ProgressStatus {
    double fraction = -1;      ///< done, in [0, 1]; < 0: unknown (no percentage, no ETA)
    double eta_seconds = -1;   ///< seconds left if the phase knows better than the fraction
    std::string detail;        ///< e.g. "iteration 1200, residual 3.2e-06, rate 0.9912/iteration"
};

/// The progress line of one phase, from construction to destruction: a thread redraws it
/// (after the settings' delay, every interval) from poll(), which it calls on its own thread
/// (poll must be safe to call concurrently with the work: read atomics or lock). The line is
/// erased when the phase ends. Does nothing when progress is disabled.
class ProgressLine {
public:
    ProgressLine(std::string phase, std::function<ProgressStatus()> poll);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    /// True when lines are drawn (callers may skip preparing what poll reads otherwise).
    bool active() const { return thread_.joinable(); }

private:
    void run();
    void draw(double elapsed);

    std::string phase_;
    std::function<ProgressStatus()> poll_;
    ProgressSettings settings_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool drawn_ = false;
    std::thread thread_;
};

/// "1.2 s", "3 min 05 s": a duration for a progress line.
std::string format_duration(double seconds);

}  // namespace gpufem
