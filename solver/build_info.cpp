#include "solver/build_info.hpp"

#include <fmt/format.h>

#include "linalg/device_runtime.hpp"
#include "linalg/executor.hpp"

// The libraries' versions, from CMake (cmake/LibraryVersions.cmake).
#ifndef GPUFEM_LIBRARY_VERSIONS
#define GPUFEM_LIBRARY_VERSIONS ""
#endif

namespace gpufem {

std::string version_text()
{
    std::string text = fmt::format("gpufem {}\n", gpufem_version());
    if (!Executor::cuda_built()) {
        text += "CUDA backend: not built (the CPU backend only)\n";
    } else {
        text += fmt::format("CUDA backend: built for {}\n", cuda::built_architectures());
        const int devices = Executor::cuda_device_count();
        text += fmt::format("CUDA {}; {} GPU{}\n", cuda::runtime_versions(), devices, devices == 1 ? "" : "s");
        for (int d = 0; d < devices; ++d) {
            const std::string reason = cuda::unusable_reason(d);
            if (reason.empty())
                text += fmt::format("  GPU {}: {}: runs this build\n", d, cuda::device_name(d));
            else
                text += "  " + reason + "\n";
        }
    }
    text += fmt::format("Libraries: {}", GPUFEM_LIBRARY_VERSIONS);
    return text;
}

}  // namespace gpufem
