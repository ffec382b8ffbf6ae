#include <gtest/gtest.h>

#include <random>

#include "linalg/format_build.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"
#include "value_types.hpp"

using namespace gpufem;

namespace {

/// Sizes that are not multiples of a block, every 17th row long (up to 500 entries).
const std::vector<test::RandomSize> sizes{{1, 1, 1, 17, 1}, {97, 131, 9, 17, 131}, {1000, 1000, 40, 17, 500}};

}  // namespace

GPUFEM_VALUE_TYPED_SUITE(CsrSpmvCpu);

TYPED_TEST(CsrSpmvCpu, MatchesLongDoubleReference)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    std::mt19937 rng(11);
    const auto exec = Executor::create_cpu();
    for (const test::RandomSize& size : sizes) {
        const auto c = test::random_spmv_case<V>(size, rng);
        for (const std::string format : {"csr", "csr-scalar"}) {
            const auto op = build_format<V>(format, test::to_csr(c.m, exec), {}).op;
            EXPECT_LT(test::reference_error(*op, c.m, V(1.5), c.x, V(-0.5), c.y), tol)
                << format << " " << size.rows << "x" << size.cols;
            EXPECT_LT(test::reference_error(*op, c.m, V(1), c.x, V(0), c.y), tol);
        }
    }
}

TYPED_TEST(CsrSpmvCpu, WideOffsetsMatchTheLongDoubleReference)
{
    // 64-bit row offsets (a matrix past 2^31 - 1 entries; here small, the same arrays widened):
    // the same products and diagonal as 32-bit offsets, 4 more bytes a row, and no stored CSR
    // for a preconditioner to read.
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const auto exec = Executor::create_cpu();
    const FormatEntry& csr = assembled_formats().at("csr");
    for (const test::RandomSize& size : sizes) {
        const auto [m, xh, yh] = test::random_spmv_case<V>(size, rng);
        const index_type rows = size.rows, cols = size.cols;
        const FormatBuild<V> narrow = build_format<V>(csr, test::to_csr(m, exec), {});
        const FormatBuild<V> wide = build_format<V>(csr, test::to_wide_csr(m, exec), {});
        EXPECT_LT(test::reference_error(*wide.op, m, V(1.5), xh, V(-0.5), yh), tol)
            << rows << "x" << cols << ", seed " << seed;
        if (rows == cols) {
            EXPECT_EQ(wide.op->diagonal().to_host(), narrow.op->diagonal().to_host()) << "seed " << seed;
        }
        EXPECT_EQ(wide.op->bytes_stored(), narrow.op->bytes_stored() + 4 * (static_cast<std::size_t>(rows) + 1));
        EXPECT_EQ(wide.op->stored_csr(), nullptr);
        EXPECT_NE(narrow.op->stored_csr(), nullptr);
        EXPECT_NE(wide.op->parameters().find("64-bit row offsets"), std::string::npos) << wide.op->parameters();
        EXPECT_EQ(row_stats(test::to_wide_csr(m, exec)).max, row_stats(test::to_csr(m, exec)).max);
    }
}

TEST(CsrSpmv, WideOffsetsAreRefusedByTheFormatsThatReadThirtyTwoBits)
{
    std::mt19937 rng(test::random_seed());
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(40, 40, 5, rng);
    EXPECT_EQ(wide_csr_format_names(), "csr");
    for (const std::string name : {"csr-scalar", "ell", "sellp", "bdia", "staircase"}) {
        try {
            build_format<double>(assembled_formats().at(name), test::to_wide_csr(m, exec), {});
            ADD_FAILURE() << name << " took 64-bit offsets";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("format '" + name + "' takes matrices of at most 2,147,483,647"),
                      std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("use format csr (64-bit row offsets) or lma"), std::string::npos)
                << e.what();
        }
    }
    FormatOptions reordered;
    reordered.set_reordering(Reordering::rcm);
    EXPECT_THROW(build_format<double>(assembled_formats().at("csr"), test::to_wide_csr(m, exec), reordered),
                 std::invalid_argument);
}

TEST(CsrSpmv, BetaZeroIgnoresNanInY)
{
    std::mt19937 rng(5);
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(50, 50, 5, rng);
    const auto op = build_format<double>("csr", test::to_csr(m, exec), {}).op;
    EXPECT_EQ(test::nans_in_product(*op, test::random_vector<double>(50, rng)), 0u);
}

TEST(CsrSpmv, StatsAndBytes)
{
    std::mt19937 rng(6);
    const auto exec = Executor::create_cpu();
    test::HostCsr<double> m;
    m.rows = m.cols = 3;
    m.ptr = {0, 1, 1, 4};
    m.col = {0, 0, 1, 2};
    m.val = {1, 2, 3, 4};
    const auto csr = test::to_csr(m, exec);
    const RowStats s = row_stats(csr);
    EXPECT_EQ(s.min, 0);
    EXPECT_EQ(s.max, 3);
    EXPECT_NEAR(s.mean, 4.0 / 3.0, 1e-15);
    EXPECT_EQ(csr.bytes_stored(), 4u * 4 + 4u * 4 + 4u * 8);
    EXPECT_EQ(csr_spmv_min_bytes(csr, false), csr.bytes_stored() + 3u * 8 + 3u * 8);
}

TEST(CsrSpmv, UnknownOrUnavailableFormatIsAnError)
{
    std::mt19937 rng(7);
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(4, 4, 2, rng);
    EXPECT_THROW(build_format<double>("ellpack-xyz", test::to_csr(m, exec), {}),
                 std::invalid_argument);
    try {
        build_format<double>("cusparse", test::to_csr(m, exec), {});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cuda backend"), std::string::npos);
    }
}
