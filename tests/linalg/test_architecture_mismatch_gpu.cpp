// The start-up check against a build for an architecture the GPU lacks: a kernel compiled for
// sm_80 alone is looked up on the GPU (an H100/H200, sm_90), and the verdict names the GPU's
// compute capability, the architectures built and the rebuild to make; this build's own kernels
// pass the same check.
#include <iostream>
#include <string>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "linalg/cuda/architecture_probe.hpp"
#include "linalg/cuda_architectures.hpp"
#include "linalg/device_runtime.hpp"
#include "tests/linalg/mismatched_probe.hpp"

namespace gpufem {
namespace {

TEST(ArchitectureMismatch, AKernelOfAnotherFamilyIsRefusedNamingBoth)
{
    GPUFEM_REQUIRE_GPU();
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    if (prop.major == 8) GTEST_SKIP() << "this GPU (sm_8x) runs the sm_80 probe";
    const cudaError_t probe = test::probe_mismatched_image(0);
    EXPECT_EQ(probe, cudaErrorNoKernelImageForDevice) << cudaGetErrorString(probe);
    EXPECT_FALSE(cuda_architectures_cover(test::mismatched_probe_architectures, prop.major, prop.minor));
    const std::string verdict = cuda::probe_verdict(0, probe, test::mismatched_probe_architectures, false);
    std::cout << "verdict: " << verdict << "\n";
    for (const std::string& part :
         {fmt::format("GPU 0 ({}) has compute capability {}.{}", prop.name, prop.major, prop.minor),
          std::string("but this gpufem was built for sm_80 ("),
          fmt::format("-DCMAKE_CUDA_ARCHITECTURES={}", 10 * prop.major + prop.minor)})
        EXPECT_NE(verdict.find(part), std::string::npos) << "missing '" << part << "' in: " << verdict;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // the failed look-up leaves no error behind
}

TEST(ArchitectureMismatch, ThisBuildsKernelsRunOnTheGpu)
{
    GPUFEM_REQUIRE_GPU();
    EXPECT_EQ(cuda::unusable_reason(0), "");
    EXPECT_EQ(cuda::probe_verdict(0, cudaSuccess, test::mismatched_probe_architectures, false), "");
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    std::cout << "built for " << cuda::built_architectures() << "; GPU " << prop.name << " sm_" << prop.major
              << prop.minor << "\n";
}

}  // namespace
}  // namespace gpufem
