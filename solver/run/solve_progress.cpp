#include "solver/run/solve_progress.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

namespace gpufem {

SolveProgress::SolveProgress(double tolerance, int max_iterations)
    : tolerance_(tolerance), max_iterations_(max_iterations),
      start_(std::chrono::steady_clock::now())
{
}

void SolveProgress::record(int iteration, double relative_residual)
{
    // One atomic word: the iteration and the residual (as float: enough for a display).
    const auto r = std::bit_cast<std::uint32_t>(static_cast<float>(relative_residual));
    sample_.store((static_cast<std::uint64_t>(static_cast<std::uint32_t>(iteration)) << 32) | r,
                  std::memory_order_relaxed);
}

ProgressStatus SolveProgress::status()
{
    const std::uint64_t sample = sample_.load(std::memory_order_relaxed);
    const int iteration = static_cast<int>(sample >> 32);
    const double residual = std::bit_cast<float>(static_cast<std::uint32_t>(sample));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    ProgressStatus s;
    if (iteration == 0) {
        s.detail = "starting";
        return s;
    }
    if (iteration > previous_iteration_ && residual > 0 && previous_residual_ > 0) {
        rate_ = std::pow(residual / previous_residual_, 1.0 / (iteration - previous_iteration_));
        seconds_per_iteration_ = (seconds - previous_seconds_) / (iteration - previous_iteration_);
        previous_iteration_ = iteration;
        previous_residual_ = residual;
        previous_seconds_ = seconds;
    }
    s.detail = fmt::format("iteration {}, residual {:.2e} (tolerance {:.0e})", iteration, residual,
                           tolerance_);
    // Share of the way from 1 down to the tolerance, on a log scale.
    if (residual > 0 && tolerance_ > 0 && tolerance_ < 1)
        s.fraction = std::clamp(std::log(residual) / std::log(tolerance_), 0.0, 1.0);
    if (rate_ > 0 && rate_ < 1) {
        s.detail += fmt::format(", rate {:.4f}/iteration", rate_);
        const double remaining = std::min(std::log(tolerance_ / residual) / std::log(rate_),
                                          static_cast<double>(max_iterations_ - iteration));
        if (seconds_per_iteration_ > 0) s.eta_seconds = std::max(0.0, remaining) * seconds_per_iteration_;
    } else if (rate_ >= 1) {
        s.detail += fmt::format(", rate {:.4f}/iteration (not converging)", rate_);
    }
    return s;
}

}  // namespace gpufem
