// SELL-P and cuSPARSE's sliced ELL on the device against the CPU reference, fresh random
// inputs each run (label gpu): the conversion must give the CPU layout exactly (sorting
// included), the SpMV the CPU result.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "gpu_test.hpp"
#include "linalg/format_build.hpp"
#include "linalg/sellp.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"

using namespace gpufem;

namespace {

FormatOptions sellp_options(int slice, int threads, int sigma)
{
    FormatOptions o;
    o.set("sellp", SellpOptions{slice, threads, sigma});
    return o;
}

/// (rows, cols, max row length, every how many rows a long one comes)
const std::vector<std::tuple<int, int, int, int>> sizes{
    {1, 1, 1, 0}, {37, 20, 4, 0}, {10007, 9000, 25, 0}, {65537, 70000, 20, 5000}};

}  // namespace

GPUFEM_GPU_TYPED_SUITE(SellpGpu);

TYPED_TEST(SellpGpu, ConversionGivesTheCpuLayout)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const auto& [rows, cols, len, long_every] : sizes) {
        const auto m = test::random_csr<V>(rows, cols, len, rng, long_every, 1000);
        for (const auto& [slice, threads, sigma, padding] :
             {std::tuple{32, 4, 1, SellpPadding::valid_column},
              std::tuple{7, 2, 100, SellpPadding::valid_column},
              std::tuple{32, 8, 4096, SellpPadding::valid_column},
              std::tuple{32, 1, 1, SellpPadding::minus_one},
              std::tuple{5, 1, 1, SellpPadding::minus_one}}) {
            const auto c = convert_to_sellp(test::to_csr(m, cpu), slice, threads, sigma, padding);
            const auto g = convert_to_sellp(test::to_csr(m, gpu), slice, threads, sigma, padding);
            const std::string what = std::to_string(rows) + " slice " + std::to_string(slice) +
                                     " sigma " + std::to_string(sigma);
            EXPECT_EQ(g.entries, c.entries) << what;
            EXPECT_EQ(g.row_perm.to_host(), c.row_perm.to_host()) << what;
            EXPECT_EQ(g.slice_ptr.to_host(), c.slice_ptr.to_host()) << what;
            EXPECT_EQ(g.col_idx.to_host(), c.col_idx.to_host()) << what;
            EXPECT_EQ(g.values.to_host(), c.values.to_host()) << what;
        }
    }
}

TYPED_TEST(SellpGpu, SpmvMatchesCpu)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const test::RandomSize& size : test::device_spmv_sizes) {
        const auto c = test::random_spmv_case<V>(size, rng);
        // The CPU reference of every format is the CSR loop (cusparse-sell has no CPU build).
        const auto ref = build_format<V>("csr", test::to_csr(c.m, cpu), {});
        const std::vector<std::tuple<std::string, int, int, int>> formats{
            {"sellp", 32, 0, 1},  {"sellp", 32, 1, 1},  {"sellp", 32, 2, 1},
            {"sellp", 32, 4, 1},  {"sellp", 32, 8, 1},  {"sellp", 32, 16, 256},
            {"sellp", 32, 32, 1}, {"sellp", 7, 4, 1},   {"sellp", 3, 8, 50},
            {"sellp", 64, 2, 512}, {"cusparse-sell", 32, 0, 1}, {"cusparse-sell", 7, 0, 1}};
        for (const auto& [format, slice, threads, sigma] : formats) {
            const auto dev =
                build_format<V>(format, test::to_csr(c.m, gpu), sellp_options(slice, threads, sigma));
            for (const auto& [alpha, beta] : {std::pair{V(1), V(0)}, std::pair{V(0.75), V(2)}}) {
                EXPECT_LT(test::device_error(*ref.op, *dev.op, alpha, c.x, beta, c.y), test::tolerance<V>(2e-5))
                    << format << " " << dev.op->parameters() << " " << size.rows << "x" << size.cols
                    << " beta " << beta;
            }
        }
    }
}

TYPED_TEST(SellpGpu, OperatorsReportLikeTheCpu)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const auto m = test::random_csr<V>(5001, 5001, 20, rng);
    const auto options = sellp_options(32, 4, 64);
    const auto ref = build_format<V>("sellp", test::to_csr(m, cpu), options);
    const auto dev = build_format<V>("sellp", test::to_csr(m, gpu), options);
    EXPECT_EQ(dev.op->bytes_stored(), ref.op->bytes_stored());
    EXPECT_EQ(dev.op->spmv_min_bytes(), ref.op->spmv_min_bytes());
    EXPECT_EQ(dev.op->parameters(), ref.op->parameters());
    EXPECT_EQ(dev.host_steps, "");
    EXPECT_TRUE(dev.permutation.empty());
    const auto vendor = build_format<V>("cusparse-sell", test::to_csr(m, gpu), options);
    EXPECT_EQ(vendor.op->format(), "cusparse-sell");
    const auto layout = convert_to_sellp(test::to_csr(m, cpu), 32, 1, 1, SellpPadding::minus_one);
    EXPECT_GE(vendor.op->bytes_stored(), layout.bytes_stored());
    EXPECT_EQ(vendor.op->spmv_min_bytes(), sellp_spmv_min_bytes(layout));
}

TEST(SellpGpuEdge, BetaZeroIgnoresNanInY)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    const auto m = test::random_csr<double>(1000, 900, 8, rng);
    for (const std::string format : {"sellp", "cusparse-sell"}) {
        const auto build =
            build_format<double>(format, test::to_csr(m, gpu), sellp_options(32, 2, 64));
        EXPECT_EQ(test::nans_in_product(*build.op, test::random_vector<double>(900, rng)), 0u) << format;
    }
}

TEST(SellpGpuEdge, EmptyMatrices)
{
    GPUFEM_REQUIRE_GPU();
    const auto gpu = Executor::create_cuda();
    const auto none = test::empty_csr<double>(5, 3);
    for (const std::string format : {"sellp", "cusparse-sell", "ell", "ellr"}) {
        const auto build = build_format<double>(format, test::to_csr(none, gpu), {});
        const auto x = Array<double>::from_host(gpu, std::vector<double>{1.0, 2.0, 3.0});
        auto y = Array<double>::from_host(gpu, std::vector<double>(5, 1.0));
        build.op->apply(2.0, x, 3.0, y);
        EXPECT_EQ(y.to_host(), std::vector<double>(5, 3.0)) << format;
        auto z = Array<double>::from_host(gpu, std::vector<double>(5, std::nan("")));
        build.op->apply(x, z);
        EXPECT_EQ(z.to_host(), std::vector<double>(5, 0.0)) << format;
    }
}
