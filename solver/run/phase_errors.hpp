#pragma once
// Errors that name the phase of the run they happened in: running out of host memory
// (std::bad_alloc, which names nothing) and CUDA errors (which name the call, not the phase).
#include <new>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "solver/run/memory_estimate.hpp"

namespace gpufem {

/// " (about 1.23 GB on the host and 4.56 GB on the device were estimated for it)", or "".
inline std::string estimated_need(const PhaseEstimate* estimate)
{
    if (estimate == nullptr) return {};
    return estimate->device > 0
               ? fmt::format(" (about {:.2f} GB on the host and {:.2f} GB on the device were "
                             "estimated for it)", estimate->host / 1e9, estimate->device / 1e9)
               : fmt::format(" (about {:.2f} GB were estimated for it)", estimate->host / 1e9);
}

/// Runs fn, one phase of a run ("mesh", "assembly", "solve", "errors", "output"); a
/// std::bad_alloc inside becomes "out of host memory in the <phase> phase (about X GB were
/// estimated for it): ..." and an error whose message starts with "CUDA" gets "in the <phase>
/// phase (...): " in front, the estimate given when there is one. Other errors pass.
template <typename Fn>
auto in_phase(const char* phase, Fn&& fn, const PhaseEstimate* estimate = nullptr) -> decltype(fn())
{
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(fmt::format(
            "out of host memory in the {} phase{}: the case needs more memory than this machine "
            "has (use a coarser mesh.size, a smaller refine or degree, or precision: float)",
            phase, estimated_need(estimate)));
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        if (what.rfind("CUDA", 0) == 0)
            throw std::runtime_error(fmt::format("in the {} phase{}: {}", phase, estimated_need(estimate), what));
        throw;
    }
}

}  // namespace gpufem
