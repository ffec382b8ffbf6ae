// The CUDA architectures of a build in words, which GPUs they cover, and the start-up message
// when a GPU is not among them (the check itself runs on a GPU: docs/development.md).
#include <gtest/gtest.h>

#include "linalg/cuda_architectures.hpp"
#include "linalg/device_runtime.hpp"

using namespace gpufem;

TEST(CudaArchitectures, CMakeListsInWords)
{
    EXPECT_EQ(describe_cuda_architectures("80-real;86-real;89-real;90"),
              "sm_80, sm_86, sm_89, sm_90 and PTX compute_90");
    EXPECT_EQ(describe_cuda_architectures("80-real,90-virtual"), "sm_80 and PTX compute_90");
    EXPECT_EQ(describe_cuda_architectures("90"), "sm_90 and PTX compute_90");
    EXPECT_EQ(describe_cuda_architectures("75-virtual"), "PTX compute_75");
    EXPECT_EQ(describe_cuda_architectures(""), "no CUDA code");
}

TEST(CudaArchitectures, CodeRunsWithinItsMajorVersionAndPtxOnNewerGpus)
{
    const std::string portable = "80-real;86-real;89-real;90";
    for (auto [major, minor] : {std::pair{8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}})
        EXPECT_TRUE(cuda_architectures_cover(portable, major, minor)) << major << "." << minor;
    EXPECT_FALSE(cuda_architectures_cover(portable, 7, 5));
    // Machine code alone runs on its own major version only, from its minor up.
    EXPECT_TRUE(cuda_architectures_cover("80-real", 8, 9));
    EXPECT_FALSE(cuda_architectures_cover("80-real", 9, 0));
    EXPECT_FALSE(cuda_architectures_cover("86-real", 8, 0));
    EXPECT_FALSE(cuda_architectures_cover("90-real", 10, 0));
    EXPECT_TRUE(cuda_architectures_cover("90-virtual", 12, 0));
    EXPECT_FALSE(cuda_architectures_cover("90-virtual", 8, 9));
}

TEST(CudaArchitectures, TheStartUpMessageNamesTheGpuAndTheArchitecturesBuilt)
{
    const std::string message = unusable_gpu_message(0, "NVIDIA H200", 9, 0, "80-real", false,
                                                      "CUDA: no kernel image is available for execution on the device");
    for (const char* part : {"GPU 0 (NVIDIA H200)", "compute capability 9.0", "built for sm_80",
                             "no kernel image", "-DCMAKE_CUDA_ARCHITECTURES=90", "docs/install.md"})
        EXPECT_NE(message.find(part), std::string::npos) << part << "\n" << message;
    EXPECT_NE(unusable_gpu_message(0, "A", 8, 9, "90", true, "").find("configured on"), std::string::npos);
}

TEST(CudaArchitectures, WithoutCudaTheReasonSaysSo)
{
    if (cuda::is_built()) GTEST_SKIP() << "CUDA is built";
    EXPECT_EQ(cuda::unusable_reason(0), "gpufem was built without CUDA");
}
