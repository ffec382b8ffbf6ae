#pragma once
// What this build of gpufem is: its version, the CUDA architectures it holds code for, and the
// versions of the libraries it was built against (`gpufem --version`, report.json).
#include <string>

namespace gpufem {

/// The version from git tags at build time: "0.2.0" on a release tag, "0.2.0-5-gabc1234" five
/// commits after it, "0.1.0-240-gabc1234" before the first tag (cmake/GpufemVersion.cmake).
const char* gpufem_version();

/// What `gpufem --version` prints: the version; the CUDA backend (the architectures built, the
/// runtime and driver, each GPU with its compute capability and whether this build runs on it);
/// the libraries' versions.
std::string version_text();

}  // namespace gpufem
