// CG and BiCGSTAB, reference and merged (and CG's single reduction), on the CPU (the merged kernels' CPU reference).
#include <gtest/gtest.h>

#include "solver/communicator_checks.hpp"
#include "solver/krylov_checks.hpp"
#include "linalg/host_threads.hpp"
#include "solver/krylov/merged_kernels.hpp"
#include "value_types.hpp"

using namespace gpufem;
using namespace gpufem::test;

namespace {

GPUFEM_VALUE_TYPED_SUITE(Krylov);

}  // namespace

TYPED_TEST(Krylov, VariantsAgreeOnSpdSystem)
{
    const auto exec = Executor::create_cpu();
    check_variants_agree<TypeParam>(exec, grid_matrix<TypeParam>(exec, 40, 30, 0, 0, 0.05), true);
}

TYPED_TEST(Krylov, VariantsAgreeOnBadlyScaledSpdSystem)
{
    const auto exec = Executor::create_cpu();
    // D A D with D over 10^1 (double) or 10^0.5 (float: beyond that the recursive and the true
    // residual part ways before the tolerance is reached).
    const double spread = sizeof(TypeParam) == 8 ? 1.0 : 0.5;
    check_variants_agree<TypeParam>(exec, grid_matrix<TypeParam>(exec, 30, 30, 0, 0, 0, spread), true,
                                    0.02);
}

TYPED_TEST(Krylov, VariantsAgreeOnNonSymmetricSystem)
{
    const auto exec = Executor::create_cpu();
    check_variants_agree<TypeParam>(exec, grid_matrix<TypeParam>(exec, 40, 30, 1.2, -0.7), false);
}

TYPED_TEST(Krylov, ReportsBreakdownsAndBadData)
{
    check_breakdowns<TypeParam>(Executor::create_cpu());
}

TYPED_TEST(Krylov, CgWithTheProductFusedWithItsDotFollowsTheSeparateDot)
{
    check_fused_dot_follows_separate<TypeParam>(Executor::create_cpu(), GraphMode::off);
}

TYPED_TEST(Krylov, CgInOneResidentKernelFollowsTheMergedKernels)
{
    check_resident_follows_merged<TypeParam>(Executor::create_cpu(), {{90, 70}});
}

TEST(Krylov, TheFusedDotSavesTwoVectorReadsAnIterationInTheTrafficModel)
{
    PreconditionerTraffic none, diagonal, general;
    diagonal.present = diagonal.diagonal = true;
    general.present = true;
    general.apply_bytes = 1000;
    for (const auto& [m, separate] : {std::pair{none, 11u}, std::pair{diagonal, 13u}, std::pair{general, 13u}}) {
        const std::size_t apply = m.present && !m.diagonal ? m.apply_bytes : 0;
        EXPECT_EQ(vector_bytes_per_iteration(KrylovMethod::cg, KrylovVariant::merged, m, 100, 8), separate * 800 + apply);
        EXPECT_EQ(vector_bytes_per_iteration(KrylovMethod::cg, KrylovVariant::merged, m, 100, 8, true),
                  (separate - 2) * 800 + apply);
    }
}

TEST(Krylov, JacobiCutsIterationsOnBadlyScaledSystem)
{
    const auto exec = Executor::create_cpu();
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 30, 30, 0, 0, 0, 3.0), {}).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(900, 3));
    SolveOptions options;
    options.tolerance = 1e-8;
    options.max_iterations = 50000;
    const auto plain = solve_once(KrylovMethod::cg, KrylovVariant::merged, *a, b, options);
    const JacobiPreconditioner<double> m(*a);
    const auto jacobi = solve_once(KrylovMethod::cg, KrylovVariant::merged, *a, b, options, &m);
    EXPECT_LT(2 * jacobi.result.iterations, plain.result.iterations)
        << jacobi.result.iterations << " vs " << plain.result.iterations;
}

TEST(Krylov, SingleReductionCgFollowsMergedCg)
{
    // Chronopoulos-Gear CG is CG rearranged: on a randomly scaled SPD system with a random
    // right-hand side it takes merged CG's iterations to the same solution, with every
    // preconditioner path, its residuals along the way the same to rounding, and it moves the
    // bytes its traffic model says (one reduction: r.r, r.z and z.Az).
    const auto exec = Executor::create_cpu();
    const unsigned seed = random_seed();
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 45, 35, 0, 0, 0, 1.5, seed), {}).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(45 * 35, seed + 1));
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 20000;
    for (TestPreconditioner pre : {TestPreconditioner::none, TestPreconditioner::jacobi,
                                   TestPreconditioner::opaque_jacobi}) {
        SCOPED_TRACE(test_preconditioner_name(pre));
        const auto m = make_test_preconditioner(pre, *a);
        const auto merged = solve_once(KrylovMethod::cg, KrylovVariant::merged, *a, b, options, m.get());
        const auto single = solve_once(KrylovMethod::cg, KrylovVariant::single_reduction, *a, b, options, m.get());
        EXPECT_GT(merged.result.iterations, 30);
        // Without a preconditioner the badly scaled system takes about 1,500 iterations, over
        // which rounding moves the two recurrences apart (as it does the merged and the
        // reference variants): by up to 20 iterations, 1.3%, over 300 seeds; 3% allowed.
        EXPECT_LE(std::abs(merged.result.iterations - single.result.iterations), 1 + merged.result.iterations * 3 / 100)
            << merged.result.iterations << " vs " << single.result.iterations;
        EXPECT_LT(relative_difference(single.x, merged.x), 1e-8);
        const auto& hm = merged.result.residual_history;
        const auto& hs = single.result.residual_history;
        for (std::size_t k = 0; k < std::min<std::size_t>(std::min(hm.size(), hs.size()), 20); ++k)
            EXPECT_NEAR(hs[k], hm[k], 1e-6 * hm[k]) << "residual " << k;
    }
    PreconditionerTraffic none, diagonal;
    diagonal.present = diagonal.diagonal = true;
    EXPECT_EQ(vector_bytes_per_iteration(KrylovMethod::cg, KrylovVariant::single_reduction, none, 100, 8), 11u * 800);
    EXPECT_EQ(vector_bytes_per_iteration(KrylovMethod::cg, KrylovVariant::single_reduction, diagonal, 100, 8), 14u * 800);
}

TEST(Krylov, SingleReductionIsRefusedForBicgstab)
{
    const auto exec = Executor::create_cpu();
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 10, 10, 0.5), {}).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(100, 3));
    Array<double> x(exec, 100);
    fill(x, 0.0);
    SolveOptions options;
    try {
        solve(KrylovMethod::bicgstab, KrylovVariant::single_reduction, *a, b, x, options);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("CG variant"), std::string::npos) << e.what();
    }
}

TEST(Krylov, GeneralPreconditionerMatchesFusedJacobi)
{
    // The same M^-1 through the general path (applied between the merged kernels) and folded
    // into the fused updates: the same iterations and solution, and one apply per iteration
    // (CG) or two (BiCGSTAB; one less when it stops on the half step), plus the start.
    const auto exec = Executor::create_cpu();
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab}) {
        SCOPED_TRACE(method_name(method));
        const double bx = method == KrylovMethod::cg ? 0.0 : 0.7;
        const auto a = build_format<double>("csr", grid_matrix<double>(exec, 30, 20, bx, 0, 0, 3.0), {}).op;
        const auto b = Array<double>::from_host(exec, random_vector<double>(600, 5));
        SolveOptions options;
        options.tolerance = 1e-9;
        options.max_iterations = 5000;
        const JacobiPreconditioner<double> fused(*a);
        const OpaqueJacobi<double> general(*a);
        for (KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged}) {
            SCOPED_TRACE(variant_name(variant));
            general.applies = 0;
            const auto f = solve_once(method, variant, *a, b, options, &fused);
            const auto g = solve_once(method, variant, *a, b, options, &general);
            // BiCGSTAB's residual spikes move where it crosses the tolerance with the summation
            // order of the OpenMP reductions (thread count; see krylov_checks.hpp).
            const int slack = method == KrylovMethod::cg ? 1 : 1 + f.result.iterations / 8;
            EXPECT_LE(std::abs(f.result.iterations - g.result.iterations), slack);
            EXPECT_LT(relative_difference(f.x, g.x), 1e-8);
            const int per_iteration = method == KrylovMethod::cg ? 1 : 2;
            EXPECT_GE(general.applies, per_iteration * g.result.iterations - 1);
            EXPECT_LE(general.applies, per_iteration * g.result.iterations + 1);
        }
    }
}

TEST(Krylov, ResultsDoNotDependOnTheThreadCount)
{
    // The CPU kernels sum in fixed chunks added in chunk order (linalg/cpu/chunked_loops.hpp):
    // 1 and 3 threads give the same iterations and the same bits, for every method and variant.
    // 150 x 100 rows make 4 chunks.
    const auto exec = Executor::create_cpu();
    const int threads_before = host_threads();
    const unsigned seed = random_seed();
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab}) {
        const double bx = method == KrylovMethod::cg ? 0.0 : 0.9;
        const auto a =
            build_format<double>("csr", grid_matrix<double>(exec, 150, 100, bx, 0, 0, 1.0), {}).op;
        const auto b = Array<double>::from_host(exec, random_vector<double>(15000, seed));
        const JacobiPreconditioner<double> jacobi(*a);
        SolveOptions options;
        options.tolerance = 1e-9;
        options.max_iterations = 20000;
        for (KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged, KrylovVariant::single_reduction})
            for (const Preconditioner<double>* m : {static_cast<const Preconditioner<double>*>(nullptr),
                                                    static_cast<const Preconditioner<double>*>(&jacobi)}) {
                if (variant == KrylovVariant::single_reduction && method != KrylovMethod::cg) continue;
                SCOPED_TRACE(fmt::format("{} {} {}", method_name(method), variant_name(variant),
                                         m ? "jacobi" : "none"));
                set_host_threads(1);
                const auto one = solve_once(method, variant, *a, b, options, m);
                set_host_threads(3);
                const auto three = solve_once(method, variant, *a, b, options, m);
                EXPECT_EQ(one.result.iterations, three.result.iterations);
                EXPECT_GT(one.result.iterations, 20);
                ASSERT_EQ(one.x.size(), three.x.size());
                std::size_t differing = 0;
                for (std::size_t i = 0; i < one.x.size(); ++i) differing += one.x[i] != three.x[i];
                EXPECT_EQ(differing, 0u) << "entries of x that differ";
            }
    }
    set_host_threads(threads_before);
}

TEST(Krylov, ReportsEveryResidualItLearnsToTheCallback)
{
    // The progress line's source: (iteration, ||r||/||b||) in order, the last one the result.
    const auto exec = Executor::create_cpu();
    const auto b = Array<double>::from_host(exec, random_vector<double>(1200, 11));
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab})
        for (KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged, KrylovVariant::single_reduction}) {
            if (variant == KrylovVariant::single_reduction && method != KrylovMethod::cg) continue;
            const double bx = method == KrylovMethod::cg ? 0.0 : 0.8;
            const auto a = build_format<double>("csr", grid_matrix<double>(exec, 40, 30, bx, 0), {}).op;
            SCOPED_TRACE(fmt::format("{} {}", method_name(method), variant_name(variant)));
            std::vector<std::pair<int, double>> seen;
            SolveOptions options;
            options.tolerance = 1e-9;
            options.max_iterations = 5000;
            options.on_residual = [&seen](int k, double r) { seen.emplace_back(k, r); };
            Array<double> x(exec, b.size());
            fill(x, 0.0);
            const SolveResult result = solve(method, variant, *a, b, x, options);
            ASSERT_FALSE(seen.empty());
            for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i].first, seen[i - 1].first);
            EXPECT_EQ(seen.back().first, result.iterations);
            EXPECT_NEAR(seen.back().second, result.relative_residual, 1e-9 * result.relative_residual);
            EXPECT_LE(seen.back().second, options.tolerance);
        }
}

TEST(Krylov, CgStopsOnAPreconditionerThatIsNotPositiveDefinite)
{
    // M^-1 = -D^-1: r.z < 0 for every r != 0. Both variants stop in the first iteration with
    // a breakdown that names the preconditioner, instead of running to max_iterations.
    class NegatedJacobi final : public Preconditioner<double> {
    public:
        explicit NegatedJacobi(const LinearOperator<double>& a) : jacobi_(a) {}
        const ExecPtr& executor() const override { return jacobi_.executor(); }
        index_type size() const override { return jacobi_.size(); }
        std::string name() const override { return "negated-jacobi"; }
        void apply(const Array<double>& r, Array<double>& z) const override
        {
            jacobi_.apply(r, z);
            scale(-1.0, z);
        }
        std::size_t apply_bytes() const override { return jacobi_.apply_bytes(); }

    private:
        JacobiPreconditioner<double> jacobi_;
    };
    const auto exec = Executor::create_cpu();
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 20, 20), {}).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(400, 9));
    const NegatedJacobi m(*a);
    SolveOptions options;
    options.max_iterations = 500;
    for (KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged, KrylovVariant::single_reduction}) {
        SCOPED_TRACE(variant_name(variant));
        Array<double> x(exec, b.size());
        fill(x, 0.0);
        const SolveResult r = solve(KrylovMethod::cg, variant, *a, b, x, options, &m);
        EXPECT_EQ(r.status, SolveStatus::breakdown) << r.message;
        EXPECT_EQ(r.iterations, 1);
        EXPECT_NE(r.message.find("preconditioner is not symmetric positive definite"), std::string::npos)
            << r.message;
    }
}

TEST(Krylov, JacobiRefusesZeroDiagonal)
{
    const auto exec = Executor::create_cpu();
    Csr<double> m{2, 2, Array<index_type>::from_host(exec, std::vector<index_type>{0, 1, 2}),
                  Array<index_type>::from_host(exec, std::vector<index_type>{0, 0}),
                  Array<double>::from_host(exec, std::vector<double>{1.0, 1.0})};
    const auto a = build_format<double>("csr", std::move(m), {}).op;
    const auto b = Array<double>::from_host(exec, std::vector<double>{1, 1});
    Array<double> x(exec, 2);
    try {
        const JacobiPreconditioner<double> m(*a);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
    }
}

TEST(Krylov, TimesEverySpmvOfTheIterations)
{
    const auto exec = Executor::create_cpu();
    const auto a = build_format<double>("csr", grid_matrix<double>(exec, 20, 20, 0.5, 0.5), {}).op;
    const auto b = Array<double>::from_host(exec, random_vector<double>(400, 9));
    SolveOptions options;
    options.tolerance = 1e-9;
    for (KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged}) {
        const auto timed = solve_once(KrylovMethod::bicgstab, variant, *a, b, options);
        // Two per iteration; the reference skips the second when it converges on the half step.
        const std::size_t count = timed.result.spmv_seconds.size();
        const std::size_t full = 2 * std::size_t(timed.result.iterations);
        EXPECT_TRUE(count == full || (variant == KrylovVariant::reference && count == full - 1))
            << count << " SpMVs for " << timed.result.iterations << " iterations";
        options.time_spmv = false;
        const auto off = solve_once(KrylovMethod::bicgstab, variant, *a, b, options);
        EXPECT_TRUE(off.result.spmv_seconds.empty());
        options.time_spmv = true;
    }
}

TEST(Krylov, MultiDotEqualsSeparateDots)
{
    const auto exec = Executor::create_cpu();
    for (std::size_t n : {1u, 255u, 256u, 257u, 1000u}) {
        const auto x = random_vector<double>(n, 1), y = random_vector<double>(n, 2),
                   z = random_vector<double>(n, 3);
        const double* xs[] = {x.data(), y.data(), x.data()};
        const double* ys[] = {y.data(), z.data(), x.data()};
        double result[3];
        MergedWorkspace ws;
        kernels::cpu::multi_dot<double>(*exec, ws, n, 3, xs, ys, result);
        for (int k = 0; k < 3; ++k) {
            double expect = 0;
            for (std::size_t i = 0; i < n; ++i) expect += xs[k][i] * ys[k][i];
            EXPECT_NEAR(result[k], expect, 1e-12 * n);
        }
    }
}

TYPED_TEST(Krylov, SplitReductionsGiveTheFusedSolveBitForBit)
{
    check_split_reductions_change_nothing<TypeParam>(Executor::create_cpu(), random_seed());
}

TEST(Krylov, TwoRanksSolveTheirBlocksAsOneRankSolvesTheWhole)
{
    check_two_ranks_solve_as_one<double>(Executor::create_cpu(), random_seed());
}
