#pragma once
// The CUDA architectures a build of gpufem holds code for, in words, and the start-up message
// when a GPU cannot run any of them. Host code, in every build (the CPU-only one included).
#include <string>

namespace gpufem {

/// CMake's architecture list ("80-real;86-real;89-real;90", "90-virtual", "90"; ',' may
/// separate the entries too) in words:
/// "sm_80, sm_86, sm_89, sm_90 and PTX compute_90". An entry NN is code for sm_NN and PTX
/// compute_NN; NN-real the code alone, NN-virtual the PTX alone. Empty: "no CUDA code".
std::string describe_cuda_architectures(const std::string& cmake_list);

/// Whether a build for `cmake_list` holds code a GPU of compute capability major.minor runs:
/// an sm_XY of the same major version and Y <= minor, or a PTX compute_XY at most the GPU's
/// (the driver compiles it at the first start). The device's own answer (the probe kernel) is
/// what gpufem goes by; this is its explanation.
bool cuda_architectures_cover(const std::string& cmake_list, int major, int minor);

/// The start-up error for GPU `device` (its name and compute capability) when this build,
/// made for `cmake_list` (`native`: whether CMake chose the configuring machine's GPU), cannot
/// run on it; cuda_error is what the CUDA runtime said.
std::string unusable_gpu_message(int device, const std::string& name, int major, int minor,
                                 const std::string& cmake_list, bool native,
                                 const std::string& cuda_error);

}  // namespace gpufem
