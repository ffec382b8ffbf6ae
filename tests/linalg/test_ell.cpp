// ELLPACK / ELLPACK-R on the CPU: layout of a hand-made matrix, SpMV against the
// long-double reference, sizes and bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "linalg/ell.hpp"
#include "linalg/format_build.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"
#include "value_types.hpp"

using namespace gpufem;

namespace {

/// 3 x 4: row 0 = {0: 1, 2: 2}, row 1 empty, row 2 = {1: 3, 2: 4, 3: 5}.
test::HostCsr<double> small_matrix()
{
    test::HostCsr<double> m;
    m.rows = 3;
    m.cols = 4;
    m.ptr = {0, 2, 2, 5};
    m.col = {0, 2, 1, 2, 3};
    m.val = {1, 2, 3, 4, 5};
    return m;
}

}  // namespace

TEST(Ell, LayoutIsColumnMajorPaddedWithHarmlessEntries)
{
    const auto exec = Executor::create_cpu();
    const auto ell = convert_to_ell(test::to_csr(small_matrix(), exec), false);
    EXPECT_EQ(ell.width, 3);
    EXPECT_EQ(ell.stride, 32);
    EXPECT_FALSE(ell.with_lengths);
    EXPECT_TRUE(ell.row_len.empty());
    ASSERT_EQ(ell.col_idx.size(), 3u * 32);
    const auto col = ell.col_idx.to_host();
    const auto val = ell.values.to_host();
    // Entry k of row i at k * 32 + i; padding: the row's last column (row 0: 2), the row
    // itself for the empty row 1, min(row, cols - 1) = 3 for the padded rows 3..31.
    const std::vector<std::tuple<int, int, int, double>> expect{
        {0, 0, 0, 1}, {0, 1, 2, 2}, {0, 2, 2, 0}, {1, 0, 1, 0}, {1, 1, 1, 0}, {1, 2, 1, 0},
        {2, 0, 1, 3}, {2, 1, 2, 4}, {2, 2, 3, 5}, {3, 0, 3, 0}, {31, 2, 3, 0}};
    for (const auto& [row, k, c, v] : expect) {
        EXPECT_EQ(col[k * 32 + row], c) << row << "," << k;
        EXPECT_EQ(val[k * 32 + row], v) << row << "," << k;
    }
    for (std::size_t i = 0; i < col.size(); ++i) {
        EXPECT_GE(col[i], 0);
        EXPECT_LT(col[i], 4);
    }
    EXPECT_EQ(ell.bytes_stored(), 96u * 4 + 96u * 8);
}

TEST(Ell, EllrStoresRowLengths)
{
    const auto exec = Executor::create_cpu();
    const auto ell = convert_to_ell(test::to_csr(small_matrix(), exec), true);
    EXPECT_TRUE(ell.with_lengths);
    EXPECT_EQ(ell.row_len.to_host(), (std::vector<index_type>{2, 0, 3}));
    EXPECT_EQ(ell.bytes_stored(), 96u * 4 + 96u * 8 + 3u * 4);
}

TEST(Ell, StrideRoundsUpToWarps)
{
    EXPECT_EQ(ell_stride(0), 0);
    EXPECT_EQ(ell_stride(1), 32);
    EXPECT_EQ(ell_stride(32), 32);
    EXPECT_EQ(ell_stride(33), 64);
    EXPECT_EQ(ell_stride(1030330), 1030336);
}

TEST(Ell, OperatorReportsBytesAndParameters)
{
    const auto exec = Executor::create_cpu();
    const auto ell = build_format<double>("ell", test::to_csr(small_matrix(), exec), {});
    EXPECT_EQ(ell.op->format(), "ell");
    EXPECT_TRUE(ell.permutation.empty());
    EXPECT_EQ(ell.host_steps, "");
    EXPECT_GT(ell.convert_seconds, 0.0);  // measured, not left at 0
    EXPECT_LT(ell.convert_seconds, 10.0);
    EXPECT_EQ(ell.op->bytes_stored(), 96u * 12);
    // 3 rows x width 3 x (4 + 8) + x (4 x 8) + y (3 x 8)
    EXPECT_EQ(ell.op->spmv_min_bytes(), 9u * 12 + 32 + 24);
    EXPECT_EQ(ell.op->parameters(), "width=3 stride=32 padding=80.0%");
    const auto ellr = build_format<double>("ellr", test::to_csr(small_matrix(), exec), {});
    EXPECT_EQ(ellr.op->format(), "ellr");
    // 5 entries x 12 + lengths 3 x 4 + x + y
    EXPECT_EQ(ellr.op->spmv_min_bytes(), 5u * 12 + 12 + 32 + 24);
}

GPUFEM_VALUE_TYPED_SUITE(EllSpmvCpu);

TYPED_TEST(EllSpmvCpu, MatchesLongDoubleReference)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    std::mt19937 rng(21);
    const auto exec = Executor::create_cpu();
    // Sizes that are not multiples of 32, empty rows, a few very long rows.
    for (const test::RandomSize& size :
         {test::RandomSize{1, 1, 1}, test::RandomSize{31, 40, 3}, test::RandomSize{97, 131, 9},
          test::RandomSize{1000, 1000, 30}, test::RandomSize{2049, 1500, 12, 400, 700}}) {
        const auto c = test::random_spmv_case<V>(size, rng);
        for (const std::string format : {"ell", "ellr"}) {
            const auto build = build_format<V>(format, test::to_csr(c.m, exec), {});
            for (const auto& [alpha, beta] : {std::pair{V(1), V(0)}, std::pair{V(1.5), V(-0.5)},
                                              std::pair{V(0), V(2)}, std::pair{V(-2), V(1)}}) {
                EXPECT_LT(test::reference_error(*build.op, c.m, alpha, c.x, beta, c.y), tol)
                    << format << " " << size.rows << "x" << size.cols << " alpha " << alpha << " beta "
                    << beta;
            }
        }
    }
}

TYPED_TEST(EllSpmvCpu, TheProductFusedWithTheDotOrTheDirectionGivesTheProductAndEachBlocksSum)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto exec = Executor::create_cpu();
    for (const test::RandomSize& size : {test::RandomSize{1, 1, 1}, test::RandomSize{257, 257, 9},
                                         test::RandomSize{1000, 1000, 30, 100, 300}}) {
        const auto c = test::random_spmv_case<V>(size, rng);
        for (const std::string format : {"ell", "ellr"}) {
            SCOPED_TRACE(format + " " + std::to_string(size.rows));
            const auto build = build_format<V>(format, test::to_csr(c.m, exec), {});
            test::expect_fused_dot(*build.op, c.x, ell_dot_rows, 0);
            test::expect_cg_direction(*build.op, c.x, ell_dot_rows, 0, rng);
        }
    }
    // A rectangular matrix has no fused product.
    const auto wide = build_format<double>("ell", test::to_csr(test::random_csr<double>(20, 30, 4, rng), exec), {});
    EXPECT_EQ(wide.op->dot_partials(), 0u);
}

TEST(EllSpmv, BetaZeroIgnoresNanInY)
{
    std::mt19937 rng(22);
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(70, 50, 6, rng);
    for (const std::string format : {"ell", "ellr"}) {
        const auto build = build_format<double>(format, test::to_csr(m, exec), {});
        EXPECT_EQ(test::nans_in_product(*build.op, test::random_vector<double>(50, rng)), 0u) << format;
    }
}

TEST(EllSpmv, EmptyMatricesAndRows)
{
    const auto exec = Executor::create_cpu();
    const auto none = test::empty_csr<double>(5, 3);
    for (const std::string format : {"ell", "ellr"}) {
        const auto build = build_format<double>(format, test::to_csr(none, exec), {});
        EXPECT_EQ(build.op->bytes_stored(), format == "ell" ? 0u : 5u * 4);
        const auto x = Array<double>::from_host(exec, std::vector<double>{1.0, 2.0, 3.0});
        auto y = Array<double>::from_host(exec, std::vector<double>(5, 1.0));
        build.op->apply(2.0, x, 3.0, y);
        EXPECT_EQ(y.to_host(), std::vector<double>(5, 3.0));
    }
    test::HostCsr<double> zero;  // 0 x 0
    zero.ptr = {0};
    const auto build = build_format<double>("ell", test::to_csr(zero, exec), {});
    Array<double> x(exec, 0), y(exec, 0);
    build.op->apply(x, y);
    EXPECT_EQ(build.op->rows(), 0);
}
