#pragma once
// Shared by the stand-ins that replace the CUDA backend when gpufem is built without CUDA.
#include <stdexcept>

namespace gpufem::detail {
[[noreturn]] inline void no_cuda() { throw std::runtime_error("gpufem was built without CUDA"); }
}  // namespace gpufem::detail
