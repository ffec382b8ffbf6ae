// ELLPACK / ELLPACK-R on the device against the CPU reference, fresh random inputs each run
// (label gpu): the conversion must give the CPU layout exactly, the SpMV the CPU result.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "gpu_test.hpp"
#include "linalg/ell.hpp"
#include "linalg/format_build.hpp"
#include "random_csr.hpp"
#include "random_values.hpp"

using namespace gpufem;

template <typename V>
class EllGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(EllGpu, ValueTypes);

TYPED_TEST(EllGpu, ConversionGivesTheCpuLayout)
{
    GPUFEM_REQUIRE_GPU();
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const auto& [rows, cols, len, long_every] :
         {std::tuple{1, 1, 1, 0}, std::tuple{33, 20, 4, 0}, std::tuple{10007, 9000, 25, 0},
          std::tuple{65537, 70000, 20, 5000}}) {
        const auto m = test::random_csr<V>(rows, cols, len, rng, long_every, 1000);
        for (bool lengths : {false, true}) {
            const auto c = convert_to_ell(test::to_csr(m, cpu), lengths);
            const auto g = convert_to_ell(test::to_csr(m, gpu), lengths);
            EXPECT_EQ(g.width, c.width);
            EXPECT_EQ(g.stride, c.stride);
            EXPECT_EQ(g.col_idx.to_host(), c.col_idx.to_host()) << rows;
            EXPECT_EQ(g.values.to_host(), c.values.to_host()) << rows;
            EXPECT_EQ(g.row_len.to_host(), c.row_len.to_host()) << rows;
        }
    }
}

TYPED_TEST(EllGpu, SpmvMatchesCpu)
{
    GPUFEM_REQUIRE_GPU();
    using V = TypeParam;
    const double tol = sizeof(V) == 4 ? 2e-5 : 1e-13;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const auto& [rows, cols, len, long_every] :
         {std::tuple{1, 1, 1, 0}, std::tuple{1001, 999, 12, 0}, std::tuple{33333, 40000, 30, 5000},
          std::tuple{200003, 200003, 27, 0}}) {
        const auto m = test::random_csr<V>(rows, cols, len, rng, long_every, 2000);
        const auto xh = test::random_vector<V>(cols, rng), yh = test::random_vector<V>(rows, rng);
        for (const std::string format : {"ell", "ellr"}) {
            const auto ref = build_format<V>(format, test::to_csr(m, cpu), {});
            const auto dev = build_format<V>(format, test::to_csr(m, gpu), {});
            EXPECT_EQ(dev.op->bytes_stored(), ref.op->bytes_stored());
            EXPECT_EQ(dev.op->spmv_min_bytes(), ref.op->spmv_min_bytes());
            EXPECT_EQ(dev.op->parameters(), ref.op->parameters());
            const auto xc = Array<V>::from_host(cpu, xh);
            const auto xg = Array<V>::from_host(gpu, xh);
            for (const auto& [alpha, beta] : {std::pair{V(1), V(0)}, std::pair{V(0.75), V(2)}}) {
                auto yc = Array<V>::from_host(cpu, yh);
                auto yg = Array<V>::from_host(gpu, yh);
                ref.op->apply(alpha, xc, beta, yc);
                dev.op->apply(alpha, xg, beta, yg);
                EXPECT_LT(test::relative_max_error(yg.to_host(), yc.to_host()), tol)
                    << format << " " << rows << "x" << cols << " beta " << beta;
            }
        }
    }
}

TEST(EllGpuNan, BetaZeroIgnoresNanInY)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    const auto m = test::random_csr<double>(1000, 900, 8, rng);
    for (const std::string format : {"ell", "ellr"}) {
        const auto build = build_format<double>(format, test::to_csr(m, gpu), {});
        const auto x = Array<double>::from_host(gpu, test::random_vector<double>(900, rng));
        auto y = Array<double>::from_host(gpu, std::vector<double>(1000, std::nan("")));
        build.op->apply(x, y);
        for (double v : y.to_host()) ASSERT_FALSE(std::isnan(v)) << format;
    }
}
