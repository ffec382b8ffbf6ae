#pragma once
// The solve's progress line: the residual the solver reports (SolveOptions::on_residual), read
// by the line's thread — iteration, ||r||/||b|| against the tolerance, the convergence rate per
// iteration since the previous redraw, and the ETA that rate implies.
#include <atomic>
#include <chrono>
#include <cstdint>

#include "solver/run/progress_line.hpp"

namespace gpufem {

/// Shared between the solving thread (record) and the progress line's thread (status).
class SolveProgress {
public:
    /// tolerance: the relative residual the solve stops at; max_iterations: its limit.
    SolveProgress(double tolerance, int max_iterations);

    /// Solving thread: iteration k finished with relative residual r.
    void record(int iteration, double relative_residual);

    /// Progress line thread: what to show now.
    ProgressStatus status();

private:
    double tolerance_;
    int max_iterations_;
    std::atomic<std::uint64_t> sample_{0};  ///< iteration (high 32 bits) and a float residual
    std::chrono::steady_clock::time_point start_;
    // Progress line thread only: the sample of the previous redraw.
    int previous_iteration_ = 0;
    double previous_residual_ = 1;
    double previous_seconds_ = 0;
    double rate_ = -1;
    double seconds_per_iteration_ = -1;
};

}  // namespace gpufem
