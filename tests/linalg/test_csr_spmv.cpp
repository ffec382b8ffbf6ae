#include <gtest/gtest.h>

#include <random>

#include "linalg/format_build.hpp"
#include "random_csr.hpp"

using namespace gpufem;

template <typename V>
class CsrSpmvCpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CsrSpmvCpu, ValueTypes);

TYPED_TEST(CsrSpmvCpu, MatchesLongDoubleReference)
{
    using V = TypeParam;
    const double tol = sizeof(V) == 4 ? 1e-5 : 1e-13;
    std::mt19937 rng(11);
    const auto exec = Executor::create_cpu();
    for (const auto& [rows, cols, len] : {std::tuple{1, 1, 1}, std::tuple{97, 131, 9},
                                          std::tuple{1000, 1000, 40}}) {
        const auto m = test::random_csr<V>(rows, cols, len, rng, 17, std::min(cols, 500));
        const auto xh = test::random_vector<V>(cols, rng), yh = test::random_vector<V>(rows, rng);
        for (const std::string format : {"csr", "csr-scalar"}) {
            const auto op = build_format<V>(format, test::to_csr(m, exec), {}).op;
            const auto x = Array<V>::from_host(exec, xh);
            auto y = Array<V>::from_host(exec, yh);
            op->apply(V(1.5), x, V(-0.5), y);
            EXPECT_LT(test::relative_max_error(y.to_host(), test::dense_reference(m, V(1.5), xh, V(-0.5), yh)), tol)
                << format << " " << rows << "x" << cols;
            op->apply(x, y);
            EXPECT_LT(test::relative_max_error(y.to_host(), test::dense_reference(m, V(1), xh, V(0), yh)), tol);
        }
    }
}

TEST(CsrSpmv, BetaZeroIgnoresNanInY)
{
    std::mt19937 rng(5);
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(50, 50, 5, rng);
    const auto op = build_format<double>("csr", test::to_csr(m, exec), {}).op;
    const auto x = Array<double>::from_host(exec, test::random_vector<double>(50, rng));
    auto y = Array<double>::from_host(exec, std::vector<double>(50, std::nan("")));
    op->apply(x, y);
    for (double v : y.to_host()) EXPECT_FALSE(std::isnan(v));
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
