// Sizes that neither underflow nor overflow (max_abs, scaled_nrm2, the equilibration
// exponent), what a path names when a file was expected, and the message of a full disk.
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <sys/stat.h>

#include "linalg/blas1.hpp"
#include "linalg/file_kind.hpp"
#include "linalg/matrix_market.hpp"
#include "linalg/scaled_norms.hpp"
#include "linalg/write_errors.hpp"
#include "random_values.hpp"

using namespace gpufem;

TEST(ScaledNorms, MaxAbsFindsTheLargestAndPropagatesNanAndInf)
{
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    std::vector<double> values = test::random_vector<double>(10007, seed);
    double largest = 0;
    for (double v : values) largest = std::max(largest, std::abs(v));
    auto x = Array<double>::from_host(exec, values);
    EXPECT_EQ(max_abs(x), largest);
    values[5000] = -std::numeric_limits<double>::infinity();
    EXPECT_TRUE(std::isinf(max_abs(Array<double>::from_host(exec, values))));
    values[9000] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(max_abs(Array<double>::from_host(exec, values))));
    EXPECT_EQ(max_abs(Array<float>(exec, 0)), 0.0);
}

TEST(ScaledNorms, MinAbsFindsTheLeastAndPropagatesNan)
{
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    std::vector<double> values = test::random_vector<double>(100003, seed);
    double least = std::numeric_limits<double>::infinity();
    for (double v : values) least = std::min(least, std::abs(v));
    EXPECT_EQ(min_abs(Array<double>::from_host(exec, values)), least);
    values[70000] = -0.0;
    EXPECT_EQ(min_abs(Array<double>::from_host(exec, values)), 0.0);
    values[99000] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(min_abs(Array<double>::from_host(exec, values))));
    EXPECT_TRUE(std::isinf(min_abs(Array<float>(exec, 0))));
}

TEST(ScaledNorms, ScaledNormIsTheNormOfTheScaledVectorTimesTheScale)
{
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    const std::vector<double> values = test::random_vector<double>(5000, seed);
    const auto x = Array<double>::from_host(exec, values);
    const double reference = nrm2(x);
    EXPECT_EQ(scaled_nrm2(x), reference);  // inside the band: the same bits as nrm2
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 6; ++trial) {
        // 1e-300 .. 1e-150 and 1e150 .. 1e300, where the squares underflow or overflow.
        const int magnitude = std::uniform_int_distribution<int>(498, 996)(rng);
        const int exponent = trial % 2 ? magnitude : -magnitude;
        auto scaled = x.clone_to(exec);
        scale_by_power_of_two(exponent, scaled);
        EXPECT_NEAR(scaled_nrm2(scaled) / std::ldexp(reference, exponent), 1.0, 1e-14) << "2^" << exponent;
        std::vector<double> host(values.size());
        for (std::size_t i = 0; i < host.size(); ++i) host[i] = std::ldexp(values[i], exponent);
        EXPECT_NEAR(scaled_nrm2(host.data(), host.size()) / std::ldexp(reference, exponent), 1.0, 1e-14);
    }
}

TEST(ScaledNorms, EquilibrationLeavesOrdinaryDataAloneAndBringsTheRestToOne)
{
    EXPECT_EQ(equilibration_exponent<double>(1.0), 0);
    EXPECT_EQ(equilibration_exponent<double>(1e-40), 0);
    EXPECT_EQ(equilibration_exponent<double>(0.0), 0);
    EXPECT_EQ(equilibration_exponent<double>(std::numeric_limits<double>::infinity()), 0);
    for (const double size : {1e-300, 1e-170, 1e170, 1e300}) {
        const double scaled = std::ldexp(size, equilibration_exponent<double>(size));
        EXPECT_GE(scaled, 0.5) << size;
        EXPECT_LT(scaled, 1.0) << size;
    }
    const double single = std::ldexp(1e-20, equilibration_exponent<float>(1e-20));
    EXPECT_GE(single, 0.5);
    EXPECT_LT(single, 1.0);
}

TEST(FileKind, SaysWhatAPathIsWhenAFileWasExpected)
{
    const auto dir = std::filesystem::temp_directory_path() / ("gpufem-kind-" + std::to_string(test::random_seed()));
    std::filesystem::create_directories(dir);
    const auto fifo = dir / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::ofstream(dir / "file") << "x";
    EXPECT_EQ(not_a_regular_file(dir / "file"), "");
    EXPECT_EQ(not_a_regular_file(dir), "is a folder, not a file");
    EXPECT_EQ(not_a_regular_file("/dev/zero"), "is a device, not a file");
    EXPECT_EQ(not_a_regular_file(fifo), "is a FIFO (named pipe), not a file");
    EXPECT_EQ(not_a_regular_file(dir / "missing"), "not found");
    std::filesystem::remove_all(dir);
}

TEST(WriteErrors, AFullDiskIsSaidAsSuchNamingTheFile)
{
    EXPECT_EQ(write_error_message("/out/result.vtu", ENOSPC), "the disk is full writing '/out/result.vtu'");
    EXPECT_EQ(write_error_message("/out/a.csv", EACCES, "cannot open the file"),
              "cannot write '/out/a.csv': cannot open the file: Permission denied");
    // /dev/full fails every write with ENOSPC.
    const std::vector<double> values(100000, 1.0);
    try {
        write_matrix_market_vector("/dev/full", values);
        FAIL() << "writing to /dev/full succeeded";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("the disk is full writing '/dev/full'"), std::string::npos) << e.what();
    }
}
