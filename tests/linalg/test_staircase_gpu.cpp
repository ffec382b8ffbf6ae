// Staircase SELL on the device against the CPU reference: the same permutation and layout,
// and the same SpMV (near rounding), with one stream per group and with the single launch.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "gpu_test.hpp"
#include "linalg/format_build.hpp"
#include "linalg/staircase.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"

using namespace gpufem;

GPUFEM_GPU_TYPED_SUITE(StaircaseGpu);

TYPED_TEST(StaircaseGpu, MatchesCpuWithAndWithoutStreams)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    const unsigned s = test::random_seed();
    std::mt19937 rng(s);
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const auto& [rows, max_len, long_every] :
         {std::tuple{1, 2, 0}, std::tuple{45, 6, 0}, std::tuple{1003, 27, 97},
          std::tuple{30011, 9, 0}, std::tuple{20000, 60, 1999}}) {
        const auto m = test::random_csr<V>(rows, rows, max_len, rng, long_every, std::min(rows, 700));
        for (const auto& [alpha, sh] : {std::tuple{0.0, 1}, std::tuple{0.0, 32}, std::tuple{0.01, 32},
                                        std::tuple{0.05, 100}, std::tuple{10.0, 33}}) {
            StaircaseOptions options;
            options.alpha = alpha;
            options.slice_height = sh;
            const auto ref = build_staircase_format(test::to_csr(m, cpu), options);
            const auto perm = ref.permutation.to_host();
            const auto xh = test::random_vector<V>(rows, rng), yh = test::random_vector<V>(rows, rng);
            for (const bool streams : {true, false}) {
                options.streams = streams;
                const auto dev = build_staircase_format(test::to_csr(m, gpu), options);
                const std::string what = std::to_string(rows) + " rows, " + dev.op->parameters() +
                                         ", seed " + std::to_string(s);
                ASSERT_EQ(dev.permutation.to_host(), perm) << what;
                EXPECT_EQ(dev.op->bytes_stored(), ref.op->bytes_stored()) << what;
                EXPECT_EQ(dev.op->spmv_min_bytes(), ref.op->spmv_min_bytes()) << what;
                for (const auto& [a, b] : {std::pair{V(1), V(0)}, std::pair{V(-0.75), V(2)}})
                    EXPECT_LT(test::device_error(*ref.op, *dev.op, a, xh, b, yh), tol) << what;
            }
        }
    }
}

TYPED_TEST(StaircaseGpu, LayoutIsTheSameAsOnTheCpu)
{
    using V = TypeParam;
    const unsigned s = test::random_seed();
    SCOPED_TRACE("seed " + std::to_string(s));
    std::mt19937 rng(s);
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    // A CSR taken as already in the new order; groups from its histogram, with padding rows.
    const index_type rows = 5001;
    const auto m = test::random_csr<V>(rows, rows, 20, rng, 250, 300);
    std::vector<index_type> h(301, 0);
    for (index_type i = 0; i < rows; ++i) ++h[m.ptr[i + 1] - m.ptr[i]];
    for (const auto& [alpha, sh] : {std::tuple{0.0, 32}, std::tuple{0.02, 48}, std::tuple{2.0, 64}}) {
        // make_staircase_matrix wants every row within its group's length: give it the rows
        // sorted by length.
        const auto order = staircase_row_order([&] {
            std::vector<index_type> id(rows);
            for (index_type i = 0; i < rows; ++i) id[i] = i;
            return id;
        }(), m.ptr);
        test::HostCsr<V> sorted;
        sorted.rows = sorted.cols = rows;
        sorted.ptr = {0};
        for (index_type old : order) {
            for (index_type k = m.ptr[old]; k < m.ptr[old + 1]; ++k) {
                sorted.col.push_back(m.col[k]);
                sorted.val.push_back(m.val[k]);
            }
            sorted.ptr.push_back(static_cast<index_type>(sorted.col.size()));
        }
        const auto groups = staircase_groups(h, alpha, sh);
        const auto a_cpu = make_staircase_matrix(test::to_csr(sorted, cpu), groups, sh);
        const auto a_gpu = make_staircase_matrix(test::to_csr(sorted, gpu), groups, sh);
        EXPECT_EQ(a_gpu.col_idx.to_host(), a_cpu.col_idx.to_host()) << "alpha " << alpha << " sh " << sh;
        EXPECT_EQ(a_gpu.values.to_host(), a_cpu.values.to_host()) << "alpha " << alpha << " sh " << sh;
    }
}

TEST(StaircaseGpuMisc, StreamsStayOrderedOnTheExecutorStream)
{
    GPUFEM_REQUIRE_GPU();
    // Many groups (alpha = 0, sh = 1: one group per row length, more than kMaxStreams), and
    // applies chained on the executor's stream with no synchronisation between them: each
    // apply must see the previous one's y.
    const unsigned s = test::random_seed();
    SCOPED_TRACE("seed " + std::to_string(s));
    std::mt19937 rng(s);
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const index_type rows = 40000;
    const auto m = test::random_csr<double>(rows, rows, 80, rng);
    StaircaseOptions options;
    options.alpha = 0.0;
    options.slice_height = 1;
    options.streams = true;
    const auto ref = build_staircase_format(test::to_csr(m, cpu), options);
    const auto dev = build_staircase_format(test::to_csr(m, gpu), options);
    EXPECT_NE(dev.op->parameters().find("streams=on"), std::string::npos);
    const auto xh = test::random_vector<double>(rows, rng);
    const auto xc = Array<double>::from_host(cpu, xh);
    const auto xg = Array<double>::from_host(gpu, xh);
    auto yc = Array<double>::from_host(cpu, std::vector<double>(rows, std::nan("")));
    auto yg = Array<double>::from_host(gpu, std::vector<double>(rows, std::nan("")));
    ref.op->apply(xc, yc);
    dev.op->apply(xg, yg);
    for (int i = 0; i < 5; ++i) {
        ref.op->apply(0.5, xc, 0.9, yc);
        dev.op->apply(0.5, xg, 0.9, yg);
    }
    EXPECT_LT(test::relative_max_error(yg.to_host(), yc.to_host()), 1e-13);
}
