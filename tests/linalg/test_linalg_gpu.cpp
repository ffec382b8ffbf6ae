// CUDA kernels against the CPU reference on fresh random inputs (label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "gpu_test.hpp"
#include "linalg/blas1.hpp"
#include "linalg/csr_kernels.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "linalg/distributed_operator.hpp"
#include "linalg/format_build.hpp"
#include "linalg/interval_timer.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"

using namespace gpufem;

GPUFEM_GPU_TYPED_SUITE(LinalgGpu);

TYPED_TEST(LinalgGpu, ArraysRoundTripThroughDevice)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    const auto host = test::random_vector<V>(100003, rng);
    const auto a = Array<V>::from_host(gpu, host);
    const auto b = a.clone_to(gpu);
    EXPECT_EQ(b.to_host(), host);
}

TYPED_TEST(LinalgGpu, Blas1MatchesCpu)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    // Lengths around block (256) and reduction-grid (1024 blocks) boundaries.
    for (std::size_t n : {1ul, 255ul, 256ul, 257ul, 262143ul, 262144ul, 262145ul, 3000017ul}) {
        const auto xh = test::random_vector<V>(n, rng), yh = test::random_vector<V>(n, rng);
        auto xc = Array<V>::from_host(cpu, xh), yc = Array<V>::from_host(cpu, yh);
        auto xg = Array<V>::from_host(gpu, xh), yg = Array<V>::from_host(gpu, yh);
        EXPECT_NEAR(dot(xg, yg), dot(xc, yc), 1e-12 * n) << n;
        EXPECT_NEAR(nrm2(xg), nrm2(xc), 1e-12 * n) << n;
        EXPECT_EQ(max_abs(xg), max_abs(xc)) << n;
        EXPECT_EQ(min_abs(xg), min_abs(xc)) << n;
        // A NaN anywhere wins, even beside an infinity (or a zero for the minimum).
        auto bad = xh;
        bad[n / 2] = std::numeric_limits<V>::infinity();
        EXPECT_TRUE(std::isinf(max_abs(Array<V>::from_host(gpu, bad)))) << n;
        bad[0] = V(0);
        EXPECT_EQ(min_abs(Array<V>::from_host(gpu, bad)), 0.0) << n;
        bad[n - 1] = std::numeric_limits<V>::quiet_NaN();
        EXPECT_TRUE(std::isnan(max_abs(Array<V>::from_host(gpu, bad)))) << n;
        EXPECT_TRUE(std::isnan(min_abs(Array<V>::from_host(gpu, bad)))) << n;
        axpy(V(0.25), xc, yc), axpy(V(0.25), xg, yg);
        xpay(xc, V(-1.5), yc), xpay(xg, V(-1.5), yg);
        scale(V(2), yc), scale(V(2), yg);
        EXPECT_LT(test::relative_max_error(yg.to_host(), yc.to_host()), 1e-6) << n;
        fill(yg, V(3));
        for (V v : yg.to_host()) ASSERT_EQ(v, V(3));
    }
}

TYPED_TEST(LinalgGpu, SpmvFormatsMatchCpu)
{
    using V = TypeParam;
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const test::RandomSize& size : {test::RandomSize{1, 1, 1}, test::RandomSize{1001, 999, 12},
                                         test::RandomSize{33333, 40000, 30, 1000, 3000},
                                         test::RandomSize{200000, 200000, 27}}) {
        const auto c = test::random_spmv_case<V>(size, rng);
        const auto ref_op = build_format<V>("csr", test::to_csr(c.m, cpu), {}).op;
        for (const std::string format : {"csr", "csr-scalar", "cusparse"}) {
            const auto op = build_format<V>(format, test::to_csr(c.m, gpu), {}).op;
            EXPECT_LT(test::device_error(*ref_op, *op, V(0.75), c.x, V(2), c.y), test::tolerance<V>(2e-5))
                << format << " " << size.rows << "x" << size.cols;
        }
    }
}

TYPED_TEST(LinalgGpu, WideOffsetsMatchCpu)
{
    // csr with 64-bit row offsets on the device, every coop width and the tuner, against the
    // CPU's 32-bit product; its diagonal equal to the 32-bit one's.
    using V = TypeParam;
    const double tol = test::tolerance<V>(2e-5);
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const FormatEntry& csr = assembled_formats().at("csr");
    for (const auto& [rows, len, long_every] : {std::tuple{1, 1, 0}, std::tuple{33333, 30, 1000},
                                                std::tuple{200000, 27, 0}}) {
        const auto m = test::random_csr<V>(rows, rows, len, rng, long_every, 3000);
        const auto xh = test::random_vector<V>(rows, rng), yh = test::random_vector<V>(rows, rng);
        const auto ref = build_format<V>(csr, test::to_csr(m, cpu), {});
        const auto xc = Array<V>::from_host(cpu, xh);
        auto yc = Array<V>::from_host(cpu, yh);
        ref.op->apply(V(0.75), xc, V(2), yc);
        const auto expect = yc.to_host();
        for (const int coop : {0, 1, 2, 4, 8, 16, 32}) {
            FormatOptions options;
            options.set("csr", CsrOptions{.coop = coop});
            const auto wide = build_format<V>(csr, test::to_wide_csr(m, gpu), options);
            const auto xg = Array<V>::from_host(gpu, xh);
            for (int repeat = 0; repeat < (coop == 0 ? 40 : 1); ++repeat) {  // coop 0: the tuner's trials
                auto yg = Array<V>::from_host(gpu, yh);
                wide.op->apply(V(0.75), xg, V(2), yg);
                EXPECT_LT(test::relative_max_error(yg.to_host(), expect), tol)
                    << "coop " << coop << " " << rows << " rows, " << wide.op->parameters() << ", seed " << seed;
            }
            EXPECT_EQ(wide.op->diagonal().to_host(), ref.op->diagonal().to_host()) << "seed " << seed;
        }
        // The row statistics on the device, both offset widths, as on the CPU.
        const RowStats on_cpu = row_stats(test::to_csr(m, cpu));
        for (const RowStats on_gpu : {row_stats(test::to_csr(m, gpu)), row_stats(test::to_wide_csr(m, gpu))}) {
            EXPECT_EQ(on_gpu.min, on_cpu.min) << rows << " rows, seed " << seed;
            EXPECT_EQ(on_gpu.max, on_cpu.max) << rows << " rows, seed " << seed;
            EXPECT_DOUBLE_EQ(on_gpu.mean, on_cpu.mean) << rows << " rows, seed " << seed;
        }
        // The plain one-thread-a-row kernel over 64-bit offsets.
        const WideCsr<V> a = test::to_wide_csr(m, gpu);
        const auto xg = Array<V>::from_host(gpu, xh);
        auto yg = Array<V>::from_host(gpu, yh);
        kernels::cuda::csr_spmv(*gpu, a, V(0.75), xg.data(), V(2), yg.data());
        EXPECT_LT(test::relative_max_error(yg.to_host(), expect), tol) << "scalar kernel, seed " << seed;
    }
}

TYPED_TEST(LinalgGpu, OwnedAndGhostColumnsSplitAndCompressAsOnTheCpu)
{
    // A rank's rows split into owned and ghost columns (with 32-bit and 64-bit row offsets), and
    // the ghost block kept for its rows with entries only (many rows without any), on the
    // device as on the CPU.
    using V = TypeParam;
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    // Rows of up to 12 entries, and of up to 90 (a warp's several steps of 32).
    for (const auto& [owned, ghosts, longest] :
         {std::tuple{1, 0, 12}, std::tuple{777, 50, 90}, std::tuple{100000, 3000, 12}, std::tuple{5000, 4000, 90}}) {
        const auto m = test::random_csr<V>(owned, owned + ghosts, longest, rng);
        SplitRows<V> on_cpu = split_owned_columns(test::to_csr(m, cpu), ghosts);
        SplitRows<V> on_gpu = split_owned_columns(test::to_csr(m, gpu), ghosts);
        for (auto [c, g] : {std::pair{&on_cpu.local, &on_gpu.local}, std::pair{&on_cpu.nonlocal, &on_gpu.nonlocal}}) {
            EXPECT_EQ(g->row_ptr.to_host(), c->row_ptr.to_host()) << owned << " rows, seed " << seed;
            EXPECT_EQ(g->col_idx.to_host(), c->col_idx.to_host()) << owned << " rows, seed " << seed;
            EXPECT_EQ(g->values.to_host(), c->values.to_host()) << owned << " rows, seed " << seed;
        }
        // The same rows with 64-bit offsets (a rank's rows past 2^31 - 1 entries), on both: the
        // same blocks, the local one keeping the 64-bit offsets.
        const std::vector<index_type> local_ptr = on_cpu.local.row_ptr.to_host();
        for (const ExecPtr& exec : {cpu, gpu}) {
            const SplitRows<V, wide_offset_type> wide = split_owned_columns(test::to_wide_csr(m, exec), ghosts);
            const std::string where = (exec == cpu ? "cpu, " : "cuda, ") + std::to_string(owned) + " rows, seed " +
                                      std::to_string(seed);
            EXPECT_EQ(wide.local.row_ptr.to_host(), std::vector<wide_offset_type>(local_ptr.begin(), local_ptr.end()))
                << where;
            EXPECT_EQ(wide.local.col_idx.to_host(), on_cpu.local.col_idx.to_host()) << where;
            EXPECT_EQ(wide.local.values.to_host(), on_cpu.local.values.to_host()) << where;
            EXPECT_EQ(wide.nonlocal.row_ptr.to_host(), on_cpu.nonlocal.row_ptr.to_host()) << where;
            EXPECT_EQ(wide.nonlocal.col_idx.to_host(), on_cpu.nonlocal.col_idx.to_host()) << where;
            EXPECT_EQ(wide.nonlocal.values.to_host(), on_cpu.nonlocal.values.to_host()) << where;
        }
        const GhostRows<V> c = compress_ghost_rows(std::move(on_cpu.nonlocal));
        const GhostRows<V> g = compress_ghost_rows(std::move(on_gpu.nonlocal));
        EXPECT_EQ(g.row_of.to_host(), c.row_of.to_host()) << owned << " rows, seed " << seed;
        EXPECT_EQ(g.block.row_ptr.to_host(), c.block.row_ptr.to_host()) << owned << " rows, seed " << seed;
        // The CPU's rows: those with a ghost entry, each once, in order.
        std::vector<index_type> expected;
        for (index_type i = 0; i < owned; ++i)
            for (index_type k = m.ptr[i]; k < m.ptr[i + 1]; ++k)
                if (m.col[static_cast<std::size_t>(k)] >= owned) {
                    expected.push_back(i);
                    break;
                }
        EXPECT_EQ(c.row_of.to_host(), expected) << owned << " rows, seed " << seed;
        EXPECT_EQ(c.block.rows, static_cast<index_type>(expected.size()));
    }
}

TYPED_TEST(LinalgGpu, RectangularRowsSplitAsOnTheCpu)
{
    // A transfer's rows (more or fewer owned columns than rows) split on the device as on the
    // CPU, and the CPU's blocks hold exactly the entries below and past the owned columns.
    using V = TypeParam;
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (const auto& [rows, owned, ghosts] : {std::tuple{500, 70, 9}, std::tuple{20000, 160000, 2500}}) {
        const auto m = test::random_csr<V>(rows, owned + ghosts, 9, rng);
        SplitRows<V> on_cpu = split_owned_columns(test::to_csr(m, cpu), owned, ghosts);
        SplitRows<V> on_gpu = split_owned_columns(test::to_csr(m, gpu), owned, ghosts);
        EXPECT_EQ(on_cpu.local.cols, owned);
        EXPECT_EQ(on_cpu.nonlocal.cols, ghosts);
        std::size_t below = 0;
        for (const index_type c : m.col) below += c < owned;
        EXPECT_EQ(static_cast<std::size_t>(on_cpu.local.nnz()), below) << "seed " << seed;
        EXPECT_EQ(static_cast<std::size_t>(on_cpu.nonlocal.nnz()), m.col.size() - below) << "seed " << seed;
        for (auto [c, g] : {std::pair{&on_cpu.local, &on_gpu.local}, std::pair{&on_cpu.nonlocal, &on_gpu.nonlocal}}) {
            EXPECT_EQ(g->row_ptr.to_host(), c->row_ptr.to_host()) << rows << " rows, seed " << seed;
            EXPECT_EQ(g->col_idx.to_host(), c->col_idx.to_host()) << rows << " rows, seed " << seed;
            EXPECT_EQ(g->values.to_host(), c->values.to_host()) << rows << " rows, seed " << seed;
        }
    }
}

TEST(LinalgGpuTimer, EventTimerMeasuresEveryInterval)
{
    GPUFEM_REQUIRE_GPU();
    const auto gpu = Executor::create_cuda();
    auto timer = make_interval_timer(gpu);
    Array<double> x(gpu, 1 << 22);
    for (int i = 0; i < 5; ++i) {
        timer->start();
        fill(x, double(i));
        timer->stop();
    }
    const auto s = timer->seconds();
    ASSERT_EQ(s.size(), 5u);
    for (double t : s) {
        EXPECT_GT(t, 0.0);
        EXPECT_LT(t, 1.0);
    }
}
