#include <gtest/gtest.h>

#include <random>

#include "linalg/array.hpp"
#include "random_csr.hpp"

using namespace gpufem;

TEST(Array, HostRoundTripKeepsValues)
{
    std::mt19937 rng(1);
    const auto host = test::random_vector<double>(1000, rng);
    const auto exec = Executor::create_cpu();
    const auto a = Array<double>::from_host(exec, host);
    EXPECT_EQ(a.size(), 1000u);
    EXPECT_EQ(a.bytes(), 8000u);
    EXPECT_EQ(a.to_host(), host);
}

TEST(Array, CloneIsIndependentCopy)
{
    std::mt19937 rng(2);
    const auto host = test::random_vector<float>(77, rng);
    const auto exec = Executor::create_cpu();
    auto a = Array<float>::from_host(exec, host);
    auto b = a.clone_to(exec);
    a.data()[0] = 42.0f;
    EXPECT_EQ(b.to_host(), host);
}

TEST(Array, MoveLeavesSourceEmpty)
{
    const auto exec = Executor::create_cpu();
    Array<int> a(exec, 10);
    Array<int> b(std::move(a));
    EXPECT_EQ(b.size(), 10u);
    EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from state is defined
    EXPECT_EQ(a.data(), nullptr);
}

TEST(Array, CopyFromRejectsSizeMismatch)
{
    const auto exec = Executor::create_cpu();
    Array<int> a(exec, 10), b(exec, 11);
    EXPECT_THROW(a.copy_from(b), std::invalid_argument);
}

TEST(Executor, CpuDescribesItself)
{
    const auto exec = Executor::create_cpu();
    EXPECT_EQ(exec->backend(), Backend::cpu);
    EXPECT_FALSE(exec->is_cuda());
    EXPECT_NE(exec->device_name().find("CPU"), std::string::npos);
}

TEST(Executor, CudaRequestWithoutDeviceIsAClearError)
{
    if (Executor::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
    try {
        Executor::create_cuda(0);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        EXPECT_TRUE(msg.find("device") != std::string::npos || msg.find("CUDA") != std::string::npos)
            << msg;
    }
}
