#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "linalg/array.hpp"
#include "linalg/host_vector.hpp"
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

TEST(HostVector, LargeArraysAreHugePageAlignedAndKeepTheirValuesAcrossGrowth)
{
    // Below large_host_bytes: the ordinary allocator; from it on: 2 MiB aligned (transparent
    // huge pages where the kernel gives them). Growing across the threshold moves the values.
    const std::size_t large = gpufem::large_host_bytes / sizeof(double);
    gpufem::HostVector<double> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i) + 1.0;
    v.resize(large + 123);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % (std::size_t(2) << 20), 0u);
    for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], 0.5 * static_cast<double>(i) + 1.0) << i;
    for (std::size_t i = 1000; i < v.size(); ++i) v[i] = static_cast<double>(i);
    v.resize(3 * large);  // a large array moved into a larger one
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % (std::size_t(2) << 20), 0u);
    for (std::size_t i = 1000; i < large + 123; i += 4099) ASSERT_EQ(v[i], static_cast<double>(i)) << i;
    v.resize(10);
    v.shrink_to_fit();  // back to the ordinary allocator
    EXPECT_EQ(v[3], 2.5);
    gpufem::HostVector<std::uint8_t> bytes(gpufem::large_host_bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(bytes.data()) % (std::size_t(2) << 20), 0u);
}

namespace {

/// Pages of [p, p + bytes) the kernel has given this process (mincore), of all of them.
double resident_share(const void* p, std::size_t bytes)
{
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(p) / page * page;
    const std::size_t pages = (reinterpret_cast<std::uintptr_t>(p) + bytes - begin + page - 1) / page;
    std::vector<unsigned char> in(pages);
    if (mincore(reinterpret_cast<void*>(begin), pages * page, in.data()) != 0) return -1;
    std::size_t resident = 0;
    for (const unsigned char c : in) resident += c & 1u;
    return static_cast<double>(resident) / static_cast<double>(pages);
}

}  // namespace

TEST(HostVector, AnArrayOfAPreparedSizeTakesItsBlockWithThePagesAlreadyThere)
{
    const std::size_t mib = std::size_t(1) << 20;
    // 10 MiB and 14 MiB (multiples of 2 MiB: their rounding is themselves); a size below
    // large_host_bytes is ignored.
    gpufem::prepare_large_host_blocks({10 * mib, 14 * mib, 1000});
    EXPECT_EQ(gpufem::prepared_host_bytes(), 24 * mib);
    gpufem::HostVector<double> taken(10 * mib / sizeof(double));
    EXPECT_EQ(gpufem::prepared_host_bytes(), 14 * mib);
    EXPECT_EQ(resident_share(taken.data(), 10 * mib), 1.0) << "the prepared block's pages were first touched";
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(taken.data()) % (std::size_t(2) << 20), 0u);
    // An array of another size is allocated as before, leaving the other block.
    gpufem::HostVector<double> other(6 * mib / sizeof(double));
    EXPECT_EQ(gpufem::prepared_host_bytes(), 14 * mib);
    // The values written stay (the block is the array's own).
    for (std::size_t i = 0; i < taken.size(); ++i) taken[i] = static_cast<double>(i % 977);
    for (std::size_t i = 0; i < taken.size(); i += 4097) ASSERT_EQ(taken[i], static_cast<double>(i % 977)) << i;
    // The untaken block goes back; a second array of its size is then an ordinary one.
    EXPECT_EQ(gpufem::release_prepared_host_blocks(), 14 * mib);
    EXPECT_EQ(gpufem::prepared_host_bytes(), 0u);
    EXPECT_EQ(gpufem::release_prepared_host_blocks(), 0u);
    gpufem::HostVector<std::uint8_t> after(14 * mib);
    after.back() = 1;
    EXPECT_EQ(gpufem::prepared_host_bytes(), 0u);
}
