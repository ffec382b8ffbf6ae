#pragma once
// Errors that name the phase of the run they happened in: running out of host memory
// (std::bad_alloc, which names nothing) and CUDA errors (which name the call, not the phase).
#include <new>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace gpufem {

/// Runs fn, one phase of a run ("mesh", "assembly", "solve", "errors", "output"); a
/// std::bad_alloc inside becomes "out of host memory in the <phase> phase: ..." and an error
/// whose message starts with "CUDA" gets "in the <phase> phase: " in front. Other errors pass.
template <typename Fn>
auto in_phase(const char* phase, Fn&& fn) -> decltype(fn())
{
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(fmt::format(
            "out of host memory in the {} phase: the case needs more memory than this machine "
            "has (use a coarser mesh.size, a smaller refine or degree, or precision: float)",
            phase));
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        if (what.rfind("CUDA", 0) == 0)
            throw std::runtime_error(fmt::format("in the {} phase: {}", phase, what));
        throw;
    }
}

}  // namespace gpufem
