// ELLPACK / ELLPACK-R on the device against the CPU reference, fresh random inputs each run
// (label gpu): the conversion must give the CPU layout exactly, the SpMV the CPU result.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "gpu_test.hpp"
#include "linalg/ell.hpp"
#include "linalg/format_build.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"

using namespace gpufem;

GPUFEM_GPU_TYPED_SUITE(EllGpu);

TYPED_TEST(EllGpu, ConversionGivesTheCpuLayout)
{
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
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const test::RandomSize& size : test::device_spmv_sizes) {
        const auto c = test::random_spmv_case<V>(size, rng);
        for (const std::string format : {"ell", "ellr"}) {
            const auto ref = build_format<V>(format, test::to_csr(c.m, cpu), {});
            const auto dev = build_format<V>(format, test::to_csr(c.m, gpu), {});
            EXPECT_EQ(dev.op->bytes_stored(), ref.op->bytes_stored());
            EXPECT_EQ(dev.op->spmv_min_bytes(), ref.op->spmv_min_bytes());
            EXPECT_EQ(dev.op->parameters(), ref.op->parameters());
            for (const auto& [alpha, beta] : {std::pair{V(1), V(0)}, std::pair{V(0.75), V(2)}}) {
                EXPECT_LT(test::device_error(*ref.op, *dev.op, alpha, c.x, beta, c.y), test::tolerance<V>(2e-5))
                    << format << " " << size.rows << "x" << size.cols << " beta " << beta;
            }
            if (size.rows == size.cols) {  // the product fused with the dot (square matrices)
                SCOPED_TRACE(format + " fused dot " + std::to_string(size.rows));
                test::expect_fused_dot(*dev.op, c.x, ell_dot_rows, test::tolerance<V>(2e-5));
                test::expect_cg_direction(*dev.op, c.x, ell_dot_rows, test::tolerance<V>(2e-5), rng);
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
        EXPECT_EQ(test::nans_in_product(*build.op, test::random_vector<double>(900, rng)), 0u) << format;
    }
}
