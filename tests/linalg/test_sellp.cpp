// SELL-P on the CPU: layout of a hand-made matrix (slice pointers, padding to multiples of
// t, sorting permutation), parameter checks, SpMV against the long-double reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "linalg/format_build.hpp"
#include "linalg/sellp.hpp"
#include "spmv_checks.hpp"
#include "value_types.hpp"

using namespace gpufem;

namespace {

/// 5 x 6 with row lengths 1, 3, 0, 2, 4 and values 1..10 in CSR order.
test::HostCsr<double> small_matrix()
{
    test::HostCsr<double> m;
    m.rows = 5;
    m.cols = 6;
    m.ptr = {0, 1, 4, 4, 6, 10};
    m.col = {0, 1, 2, 4, 3, 5, 0, 1, 2, 5};
    m.val = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    return m;
}

FormatOptions sellp_options(int slice, int threads, int sigma)
{
    FormatOptions o;
    o.set("sellp", SellpOptions{slice, threads, sigma});
    return o;
}

}  // namespace

TEST(Sellp, LayoutPadsSlicesToMultiplesOfThreads)
{
    const auto exec = Executor::create_cpu();
    const auto s = convert_to_sellp(test::to_csr(small_matrix(), exec), 2, 2, 1);
    EXPECT_EQ(s.num_slices, 3);
    EXPECT_EQ(s.entries, 20);
    EXPECT_EQ(s.nnz, 10u);
    EXPECT_TRUE(s.row_perm.empty());
    // Slice widths 3 -> 4, 2 -> 2, 4 -> 4 (t = 2), times 2 rows.
    EXPECT_EQ(s.slice_ptr.to_host(), (std::vector<index_type>{0, 8, 12, 20}));
    // Column-major within a slice; padding = the row's last column, the row itself when
    // empty (row 2), min(row, cols - 1) for the last slice's extra row 5.
    EXPECT_EQ(s.col_idx.to_host(), (std::vector<index_type>{0, 1, 0, 2, 0, 4, 0, 4,  //
                                                            2, 3, 2, 5,              //
                                                            0, 5, 1, 5, 2, 5, 5, 5}));
    EXPECT_EQ(s.values.to_host(), (std::vector<double>{1, 2, 0, 3, 0, 4, 0, 0,  //
                                                       0, 5, 0, 6,              //
                                                       7, 0, 8, 0, 9, 0, 10, 0}));
    EXPECT_EQ(sellp_padding_percent(s), 100.0);
    EXPECT_EQ(s.bytes_stored(), 4u * 4 + 20u * 4 + 20u * 8);
}

TEST(Sellp, SortingWindowPermutesRowsByLength)
{
    const auto exec = Executor::create_cpu();
    const auto s = convert_to_sellp(test::to_csr(small_matrix(), exec), 2, 1, 4);
    // Window {0..3}: lengths 1, 3, 0, 2 -> rows 1, 3, 0, 2; window {4}: row 4.
    EXPECT_EQ(s.row_perm.to_host(), (std::vector<index_type>{1, 3, 0, 2, 4}));
    EXPECT_EQ(s.slice_ptr.to_host(), (std::vector<index_type>{0, 6, 8, 16}));
    EXPECT_EQ(s.col_idx.to_host(), (std::vector<index_type>{1, 3, 2, 5, 4, 5,  //
                                                            0, 2,              //
                                                            0, 5, 1, 5, 2, 5, 5, 5}));
    EXPECT_EQ(s.values.to_host(), (std::vector<double>{2, 5, 3, 6, 4, 0,  //
                                                       1, 0,              //
                                                       7, 0, 8, 0, 9, 0, 10, 0}));
}

TEST(Sellp, SortIsStableAndStaysInsideWindows)
{
    const auto exec = Executor::create_cpu();
    test::HostCsr<double> m;  // lengths 2, 2, 1, 2 | 0, 3
    m.rows = 6;
    m.cols = 3;
    m.ptr = {0, 2, 4, 5, 7, 7, 10};
    m.col = {0, 1, 0, 1, 2, 0, 2, 0, 1, 2};
    m.val.assign(10, 1.0);
    const auto s = convert_to_sellp(test::to_csr(m, exec), 4, 1, 4);
    EXPECT_EQ(s.row_perm.to_host(), (std::vector<index_type>{0, 1, 3, 2, 5, 4}));
}

TEST(Sellp, MinusOnePaddingIsCusparseLayout)
{
    const auto exec = Executor::create_cpu();
    const auto s = convert_to_sellp(test::to_csr(small_matrix(), exec), 2, 1, 1,
                                    SellpPadding::minus_one);
    EXPECT_EQ(s.slice_ptr.to_host(), (std::vector<index_type>{0, 6, 10, 18}));
    EXPECT_EQ(s.col_idx.to_host(), (std::vector<index_type>{0, 1, -1, 2, -1, 4,  //
                                                            -1, 3, -1, 5,        //
                                                            0, -1, 1, -1, 2, -1, 5, -1}));
}

TEST(Sellp, AutomaticThreadsPerRow)
{
    EXPECT_EQ(sellp_auto_threads(0.0), 1);
    EXPECT_EQ(sellp_auto_threads(7.0), 1);
    EXPECT_EQ(sellp_auto_threads(8.0), 1);
    EXPECT_EQ(sellp_auto_threads(8.5), 2);
    EXPECT_EQ(sellp_auto_threads(27.0), 4);
    EXPECT_EQ(sellp_auto_threads(100.0), 16);
    EXPECT_EQ(sellp_auto_threads(5000.0), 32);
}

TEST(Sellp, InvalidParametersAreErrors)
{
    const auto exec = Executor::create_cpu();
    const auto csr = test::to_csr(small_matrix(), exec);
    EXPECT_THROW(convert_to_sellp(csr, 0, 1, 1), std::invalid_argument);
    EXPECT_THROW(convert_to_sellp(csr, 32, 3, 1), std::invalid_argument);
    EXPECT_THROW(convert_to_sellp(csr, 32, 64, 1), std::invalid_argument);
    EXPECT_THROW(convert_to_sellp(csr, 32, 1, 0), std::invalid_argument);
    EXPECT_THROW(build_format<double>("sellp", test::to_csr(small_matrix(), exec),
                                      sellp_options(32, 5, 1)),
                 std::invalid_argument);
    EXPECT_THROW(build_format<double>("cusparse-sell", test::to_csr(small_matrix(), exec), {}),
                 std::invalid_argument);
}

TEST(Sellp, OperatorReportsBytesAndParameters)
{
    const auto exec = Executor::create_cpu();
    const auto build =
        build_format<double>("sellp", test::to_csr(small_matrix(), exec), sellp_options(2, 2, 1));
    EXPECT_EQ(build.op->format(), "sellp");
    EXPECT_TRUE(build.permutation.empty());
    EXPECT_EQ(build.host_steps, "");
    EXPECT_EQ(build.op->parameters(), "slice=2 t=2 sigma=1 padding=100.0%");
    EXPECT_EQ(build.op->bytes_stored(), 4u * 4 + 20u * 12);
    // 20 stored entries less the extra row's 4, slice pointers, x, y.
    EXPECT_EQ(build.op->spmv_min_bytes(), 16u * 12 + 4 * 4 + 6 * 8 + 5 * 8);
    const auto sorted =
        build_format<double>("sellp", test::to_csr(small_matrix(), exec), sellp_options(2, 1, 4));
    EXPECT_TRUE(sorted.permutation.empty());  // row-only permutation, kept inside
    EXPECT_EQ(sorted.op->bytes_stored(), 4u * 4 + 16u * 12 + 5u * 4);
}

GPUFEM_VALUE_TYPED_SUITE(SellpSpmvCpu);

TYPED_TEST(SellpSpmvCpu, MatchesLongDoubleReference)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    std::mt19937 rng(31);
    const auto exec = Executor::create_cpu();
    for (const test::RandomSize& size :
         {test::RandomSize{1, 1, 1}, test::RandomSize{37, 40, 5}, test::RandomSize{1000, 999, 30},
          test::RandomSize{2051, 1500, 12, 300, 700}}) {
        const auto c = test::random_spmv_case<V>(size, rng);
        for (const auto& [slice, threads, sigma] :
             {std::tuple{32, 0, 1}, std::tuple{32, 1, 1}, std::tuple{32, 4, 1},
              std::tuple{7, 2, 1}, std::tuple{1, 1, 1}, std::tuple{32, 8, 64},
              std::tuple{16, 32, 1000}, std::tuple{3, 16, 5}}) {
            const auto build = build_format<V>("sellp", test::to_csr(c.m, exec),
                                               sellp_options(slice, threads, sigma));
            for (const auto& [alpha, beta] : {std::pair{V(1), V(0)}, std::pair{V(1.5), V(-0.5)},
                                              std::pair{V(0), V(2)}}) {
                EXPECT_LT(test::reference_error(*build.op, c.m, alpha, c.x, beta, c.y), tol)
                    << size.rows << "x" << size.cols << " " << build.op->parameters() << " alpha "
                    << alpha << " beta " << beta;
            }
        }
    }
}

TEST(SellpSpmv, BetaZeroIgnoresNanInY)
{
    std::mt19937 rng(32);
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(70, 50, 6, rng);
    const auto build =
        build_format<double>("sellp", test::to_csr(m, exec), sellp_options(8, 2, 16));
    EXPECT_EQ(test::nans_in_product(*build.op, test::random_vector<double>(50, rng)), 0u);
}

TEST(SellpSpmv, EmptyMatrices)
{
    const auto exec = Executor::create_cpu();
    const auto none = test::empty_csr<double>(5, 3);
    const auto build =
        build_format<double>("sellp", test::to_csr(none, exec), sellp_options(4, 2, 4));
    const auto x = Array<double>::from_host(exec, std::vector<double>{1.0, 2.0, 3.0});
    auto y = Array<double>::from_host(exec, std::vector<double>(5, 1.0));
    build.op->apply(2.0, x, 3.0, y);
    EXPECT_EQ(y.to_host(), std::vector<double>(5, 3.0));
    test::HostCsr<double> zero;  // 0 x 0
    zero.ptr = {0};
    const auto empty = build_format<double>("sellp", test::to_csr(zero, exec), {});
    Array<double> x0(exec, 0), y0(exec, 0);
    empty.op->apply(x0, y0);
    EXPECT_EQ(empty.op->rows(), 0);
}
