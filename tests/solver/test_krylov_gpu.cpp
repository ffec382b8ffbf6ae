// CG and BiCGSTAB on the GPU: reference (cuBLAS) and merged agree with each other and with
// the CPU; the merged kernels are deterministic whatever check_every and the CUDA graph; the
// multi-dot reduction equals separate dots around block and grid boundaries; every format.
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "solver/communicator_checks.hpp"
#include "solver/krylov_checks.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "linalg/reordering.hpp"
#include "solver/krylov/merged_workspace.hpp"
#include "solver/krylov/resident_cg.hpp"

using namespace gpufem;
using namespace gpufem::test;

namespace {

GPUFEM_GPU_TYPED_SUITE(KrylovGpu);

}  // namespace

TYPED_TEST(KrylovGpu, VariantsAgreeOnSpdSystem)
{
    const auto exec = Executor::create_cuda();
    check_variants_agree<TypeParam>(exec, grid_matrix<TypeParam>(exec, 60, 50, 0, 0, 0.05), true);
}

TYPED_TEST(KrylovGpu, VariantsAgreeOnBadlyScaledSpdSystem)
{
    const auto exec = Executor::create_cuda();
    const double spread = sizeof(TypeParam) == 8 ? 1.0 : 0.5;
    check_variants_agree<TypeParam>(exec, grid_matrix<TypeParam>(exec, 40, 40, 0, 0, 0, spread), true,
                                    0.02);
}

TYPED_TEST(KrylovGpu, VariantsAgreeOnNonSymmetricSystem)
{
    const auto exec = Executor::create_cuda();
    check_variants_agree<TypeParam>(exec, grid_matrix<TypeParam>(exec, 70, 40, 1.2, -0.7), false);
}

TYPED_TEST(KrylovGpu, ReportsBreakdownsAndBadData)
{
    check_breakdowns<TypeParam>(Executor::create_cuda());
}

TEST(KrylovGpu, MergedMatchesCpuReference)
{
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const auto host_b = random_vector<double>(3000, 4);
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab}) {
        const double bx = method == KrylovMethod::cg ? 0.0 : 0.9;
        const auto a_cpu = build_format<double>("csr", grid_matrix<double>(cpu, 60, 50, bx), {}).op;
        const auto a_gpu = build_format<double>("csr", grid_matrix<double>(gpu, 60, 50, bx), {}).op;
        SolveOptions options;
        options.tolerance = 1e-10;
        const JacobiPreconditioner<double> m_cpu(*a_cpu), m_gpu(*a_gpu);
        const auto ref = solve_once(method, KrylovVariant::reference, *a_cpu,
                                    Array<double>::from_host(cpu, host_b), options, &m_cpu);
        const auto mer = solve_once(method, KrylovVariant::merged, *a_gpu,
                                    Array<double>::from_host(gpu, host_b), options, &m_gpu);
        EXPECT_LE(std::abs(ref.result.iterations - mer.result.iterations), 1);
        EXPECT_LT(relative_difference(mer.x, ref.x), 1e-7);
    }
}

TEST(KrylovGpu, SingleReductionCgMatchesTheCpuAndRepeatsItself)
{
    // The GPU's single-reduction kernels against their CPU reference on a randomly scaled SPD
    // system and a random right-hand side, every preconditioner path; on the GPU the same bits
    // whatever check_every and the graph.
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const unsigned seed = random_seed();
    const int nx = 70, ny = 60;
    const auto host_b = random_vector<double>(nx * ny, seed + 1);
    FormatOptions fixed;
    fixed.set("csr", CsrOptions{.tune = false});
    const auto a_cpu = build_format<double>("csr", grid_matrix<double>(cpu, nx, ny, 0, 0, 0, 1.0, seed), {}).op;
    const auto a_gpu = build_format<double>("csr", grid_matrix<double>(gpu, nx, ny, 0, 0, 0, 1.0, seed), fixed).op;
    const auto b_cpu = Array<double>::from_host(cpu, host_b);
    const auto b_gpu = Array<double>::from_host(gpu, host_b);
    for (TestPreconditioner pre : {TestPreconditioner::none, TestPreconditioner::jacobi,
                                   TestPreconditioner::opaque_jacobi}) {
        SCOPED_TRACE(test_preconditioner_name(pre));
        const auto m_cpu = make_test_preconditioner(pre, *a_cpu);
        const auto m_gpu = make_test_preconditioner(pre, *a_gpu);
        SolveOptions options;
        options.tolerance = 1e-10;
        options.max_iterations = 20000;
        const auto on_cpu = solve_once(KrylovMethod::cg, KrylovVariant::single_reduction, *a_cpu, b_cpu, options,
                                       m_cpu.get());
        std::vector<double> first;
        for (int check_every : {1, 10})
            for (GraphMode graph : {GraphMode::off, GraphMode::on}) {
                SCOPED_TRACE(fmt::format("check_every {} graph {}", check_every, graph_mode_name(graph)));
                options.check_every = check_every;
                options.graph = graph;
                const auto on_gpu = solve_once(KrylovMethod::cg, KrylovVariant::single_reduction, *a_gpu, b_gpu,
                                               options, m_gpu.get());
                // Without a preconditioner the scaled system takes hundreds of iterations, over
                // which the two backends' summation orders move them apart by a few (rounding
                // moves two CG recurrences on one backend up to 1.3% apart: 3% allowed).
                EXPECT_LE(std::abs(on_cpu.result.iterations - on_gpu.result.iterations),
                          1 + on_cpu.result.iterations * 3 / 100);
                EXPECT_LT(relative_difference(on_gpu.x, on_cpu.x), 1e-9);
                if (first.empty()) first = on_gpu.x;
                else EXPECT_EQ(on_gpu.x, first);  // bitwise
            }
    }
}

TYPED_TEST(KrylovGpu, CgWithTheProductFusedWithItsDotFollowsTheSeparateDot)
{
    const auto exec = Executor::create_cuda();
    check_fused_dot_follows_separate<TypeParam>(exec, GraphMode::off);
    check_fused_dot_follows_separate<TypeParam>(exec, GraphMode::on);
}

TYPED_TEST(KrylovGpu, CgInOneResidentKernelFollowsTheMergedKernels)
{
    check_resident_follows_merged<TypeParam>(Executor::create_cuda(), {{90, 70}});
}

TEST(KrylovGpu, CgInOneResidentKernelFollowsTheMergedKernelsOnLargerGrids)
{
    // In double (float's solves of these drift apart over their thousands of iterations):
    // 450 x 450, 792 slabs, two a block on an H100 (132 SMs, four blocks each); 530 x 490,
    // 1,015 slabs, the last block with one slab of two; 700 x 700, 1,914 slabs, too many for
    // an H100's resident blocks (the usual kernels instead).
    GPUFEM_REQUIRE_GPU();
    check_resident_follows_merged<double>(Executor::create_cuda(), {{450, 450}, {530, 490}, {700, 700}});
}

TEST(KrylovGpu, CgInOneResidentKernelMatchesItsCpuReference)
{
    // The resident kernel against its CPU reference (the same algorithm in plain loops) on a
    // randomly scaled SPD system and a random right-hand side, none and Jacobi.
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const unsigned seed = random_seed();
    const int nx = 300, ny = 200;
    const auto host_b = random_vector<double>(nx * ny, seed + 1);
    const auto a_cpu = build_format<double>("bdia", grid_matrix<double>(cpu, nx, ny, 0, 0, 0, 1.0, seed), {}).op;
    const auto a_gpu = build_format<double>("bdia", grid_matrix<double>(gpu, nx, ny, 0, 0, 0, 1.0, seed), {}).op;
    for (TestPreconditioner pre : {TestPreconditioner::none, TestPreconditioner::jacobi}) {
        SCOPED_TRACE(fmt::format("{} seed {}", test_preconditioner_name(pre), seed));
        const auto m_cpu = make_test_preconditioner(pre, *a_cpu);
        const auto m_gpu = make_test_preconditioner(pre, *a_gpu);
        SolveOptions options;
        options.tolerance = 1e-10;
        options.max_iterations = 20000;
        options.resident = ResidentMode::on;
        const auto on_cpu = solve_once(KrylovMethod::cg, KrylovVariant::merged, *a_cpu,
                                       Array<double>::from_host(cpu, host_b), options, m_cpu.get());
        const auto on_gpu = solve_once(KrylovMethod::cg, KrylovVariant::merged, *a_gpu,
                                       Array<double>::from_host(gpu, host_b), options, m_gpu.get());
        ASSERT_TRUE(on_cpu.result.resident && on_gpu.result.resident);
        EXPECT_LE(std::abs(on_cpu.result.iterations - on_gpu.result.iterations),
                  1 + on_cpu.result.iterations * 3 / 100);
        EXPECT_LT(relative_difference(on_gpu.x, on_cpu.x), 1e-8);
    }
}

TEST(KrylovGpu, MergedIsDeterministicAcrossCheckEveryAndGraph)
{
    GPUFEM_REQUIRE_GPU();
    const auto exec = Executor::create_cuda();
    FormatOptions fixed;  // the csr tuner's first SpMVs use other parameters: keep them fixed
    fixed.set("csr", CsrOptions{.tune = false});
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 80, 80, 0.6, 0.3), fixed).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(6400, 8));
    const KrylovMethod method = KrylovMethod::bicgstab;  // a non-symmetric matrix
    {
        std::vector<double> first;
        int first_iterations = -1;
        for (int check_every : {1, 7, 50})
            for (GraphMode graph : {GraphMode::off, GraphMode::on}) {
                SCOPED_TRACE(fmt::format("check_every {} graph {}", check_every, graph_mode_name(graph)));
                SolveOptions options;
                options.tolerance = 1e-10;
                options.check_every = check_every;
                options.graph = graph;
                const auto s = solve_once(method, KrylovVariant::merged, *a, b, options);
                EXPECT_EQ(s.result.graph_used, graph == GraphMode::on);
                if (graph == GraphMode::on) {
                    EXPECT_TRUE(s.result.spmv_seconds.empty());
                } else {
                    EXPECT_EQ(s.result.spmv_seconds.size(), 2 * std::size_t(s.result.iterations));
                }
                // Reads of the residual: about one per check_every iterations.
                EXPECT_LE(s.result.host_reads, s.result.iterations / check_every + 3);
                if (first.empty()) {
                    first = s.x;
                    first_iterations = s.result.iterations;
                } else {
                    EXPECT_EQ(s.result.iterations, first_iterations);
                    EXPECT_EQ(s.x, first);  // bitwise
                }
            }
    }
}

TEST(KrylovGpu, NoIterationIsQueuedPastTheStopAfterACostlyPreconditioner)
{
    // With a preconditioner that costs more than a product (as a multigrid cycle does) the
    // state is read after every iteration, and near convergence each iteration is read before
    // the next is queued: the preconditioner is applied once at the start and once per
    // iteration that counted, none for an iteration run as a no-op after the stop.
    GPUFEM_REQUIRE_GPU();
    const auto gpu = Executor::create_cuda();
    const int nx = 150, ny = 120;
    FormatOptions fixed;
    fixed.set("csr", CsrOptions{.tune = false});
    // The shift makes the convergence short and steady (about a halving per iteration), so
    // the forecast of the iterations left is right. The forecast reads the residual history:
    // a fixed right-hand side (one that passed on an H200) keeps the check deterministic, as
    // the merged solvers are bitwise reproducible on a given matrix.
    const auto a = build_format<double>("csr", grid_matrix<double>(gpu, nx, ny, 0, 0, 1.0), fixed).op;
    const auto b = Array<double>::from_host(gpu, random_vector<double>(nx * ny, 827732284u));
    const std::size_t costly = 50 * a->spmv_min_bytes();
    for (KrylovVariant variant : {KrylovVariant::merged, KrylovVariant::single_reduction})
        for (GraphMode graph : {GraphMode::off, GraphMode::on}) {
            SCOPED_TRACE(fmt::format("{}, graph {}", variant_name(variant), graph_mode_name(graph)));
            const OpaqueJacobi<double> m(*a, costly);
            SolveOptions options;
            options.tolerance = 1e-10;
            options.graph = graph;
            const auto s = solve_once(KrylovMethod::cg, variant, *a, b, options, &m);  // converged, true residual
            EXPECT_GT(s.result.iterations, 10);
            // One read of the start and one of each iteration queued (a graph replays its
            // capture: the preconditioner's host calls are then counted without it).
            EXPECT_EQ(s.result.host_reads, s.result.iterations + 1) << s.result.iterations << " iterations";
            if (graph == GraphMode::off) EXPECT_EQ(m.applies, s.result.iterations + 1);
        }
}

TEST(KrylovGpu, GraphWaitsForTheCsrTuner)
{
    GPUFEM_REQUIRE_GPU();
    const auto exec = Executor::create_cuda();
    FormatOptions tune;
    tune.set("csr", CsrOptions{.tune = true});
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 100, 100), tune).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(10000, 2));
    SolveOptions options;
    options.tolerance = 1e-10;
    options.graph = GraphMode::on;
    options.check_every = 5;
    const auto s = solve_once(KrylovMethod::cg, KrylovVariant::merged, *a, b, options);
    EXPECT_TRUE(s.result.graph_used);
    EXPECT_TRUE(a->graph_capturable());
}

TEST(KrylovGpu, MultiDotEqualsSeparateDotsAroundBoundaries)
{
    GPUFEM_REQUIRE_GPU();
    const auto exec = Executor::create_cuda();
    const std::size_t block = 256;
    const std::size_t full_grid = static_cast<std::size_t>(merged_grid(*exec, 1u << 30)) * block;
    for (std::size_t n : {std::size_t(1), block - 1, block, block + 1, 3 * block + 17,
                          full_grid - 1, full_grid, full_grid + 1, 5 * full_grid + 3}) {
        SCOPED_TRACE(n);
        std::vector<std::vector<double>> host;
        for (unsigned k = 0; k < 5; ++k) host.push_back(random_vector<double>(n, 100 + k));
        std::vector<Array<double>> dev;
        for (const auto& h : host) dev.push_back(Array<double>::from_host(exec, h));
        MergedBuffers buffers(exec, n, 1e-8, 10);
        Array<double> result(exec, 4);
        for (int count = 1; count <= 4; ++count) {
            const double* xs[4];
            const double* ys[4];
            for (int k = 0; k < count; ++k) {
                xs[k] = dev[k].data();
                ys[k] = dev[k + 1].data();
            }
            kernels::cuda::multi_dot<double>(*exec, buffers.workspace(), n, count, xs, ys,
                                             result.data());
            const auto got = result.to_host();
            for (int k = 0; k < count; ++k) {
                long double expect = 0;
                for (std::size_t i = 0; i < n; ++i) expect += (long double)host[k][i] * host[k + 1][i];
                EXPECT_NEAR(got[k], double(expect), 1e-13 * n + 1e-15) << "dot " << k;
            }
        }
    }
}

TEST(KrylovGpu, MergedCgWithJacobiAgreesOnEveryFormat)
{
    GPUFEM_REQUIRE_GPU();
    const auto exec = Executor::create_cuda();
    const auto b_host = random_vector<double>(4900, 6);
    std::vector<double> csr_x;
    for (const std::string& format : assembled_formats().names()) {
        SCOPED_TRACE(format);
        FormatBuild<double> built;
        try {
            built = build_format<double>(format, grid_matrix<double>(exec, 70, 70, 0, 0, 0, 1.0), {});
        } catch (const std::invalid_argument& refused) {
            GTEST_LOG_(INFO) << format << " refused: " << refused.what();
            continue;
        }
        auto b = Array<double>::from_host(exec, b_host);
        Array<double> x(exec, b.size());
        fill(x, 0.0);
        if (!built.permutation.empty()) {
            Array<double> pb(exec, b.size());
            permute_vector(built.permutation, b, pb, false);
            b.swap(pb);
        }
        SolveOptions options;
        options.tolerance = 1e-10;
        const JacobiPreconditioner<double> m(*built.op);
        const SolveResult r = solve(KrylovMethod::cg, KrylovVariant::merged, *built.op, b, x, options, &m);
        ASSERT_TRUE(r.converged()) << r.message;
        if (!built.permutation.empty()) {
            Array<double> px(exec, x.size());
            permute_vector(built.permutation, x, px, true);
            x.swap(px);
        }
        if (csr_x.empty()) {
            csr_x = x.to_host();
        } else {
            EXPECT_LT(relative_difference(x.to_host(), csr_x), 1e-7);
        }
    }
}

TYPED_TEST(KrylovGpu, SplitReductionsGiveTheFusedSolveBitForBit)
{
    check_split_reductions_change_nothing<TypeParam>(Executor::create_cuda(), random_seed());
}

TEST(KrylovGpu, TwoRanksSolveTheirBlocksAsOneRankSolvesTheWhole)
{
    GPUFEM_REQUIRE_GPU();
    check_two_ranks_solve_as_one<double>(Executor::create_cuda(), random_seed());
}
