#include <gtest/gtest.h>

#include <random>

#include "linalg/blas1.hpp"
#include "linalg/format_build.hpp"
#include "solver/krylov/cg.hpp"

using namespace gpufem;

namespace {

/// 1D Laplacian tridiag(-1, 2, -1) plus shift on the diagonal, as CSR on the CPU.
Csr<double> laplacian_1d(index_type n, double shift, const ExecPtr& exec)
{
    std::vector<index_type> ptr{0}, col;
    std::vector<double> val;
    for (index_type i = 0; i < n; ++i) {
        if (i > 0) col.push_back(i - 1), val.push_back(-1);
        col.push_back(i), val.push_back(2 + shift);
        if (i + 1 < n) col.push_back(i + 1), val.push_back(-1);
        ptr.push_back(static_cast<index_type>(col.size()));
    }
    return Csr<double>{n, n, Array<index_type>::from_host(exec, ptr),
                       Array<index_type>::from_host(exec, col), Array<double>::from_host(exec, val)};
}

}  // namespace

TEST(Cg, SolvesSpdSystemToTolerance)
{
    const auto exec = Executor::create_cpu();
    const index_type n = 400;
    const auto op = build_format<double>("csr", laplacian_1d(n, 0.01, exec), {}).op;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> bh(n);
    for (double& v : bh) v = dist(rng);
    const auto b = Array<double>::from_host(exec, bh);
    Array<double> x(exec, n);
    fill(x, 0.0);
    auto timer = make_interval_timer(exec);
    const SolveResult r = cg(*op, b, x, {1e-10, 5000}, timer.get());
    ASSERT_TRUE(r.converged()) << r.message;
    EXPECT_EQ(r.residual_history.size(), static_cast<std::size_t>(r.iterations + 1));
    EXPECT_EQ(timer->seconds().size(), static_cast<std::size_t>(r.iterations));
    // True residual, not the recursive one.
    Array<double> ax(exec, n);
    op->apply(x, ax);
    xpay(b, -1.0, ax);
    EXPECT_LT(nrm2(ax) / nrm2(b), 2e-10);
}

TEST(Cg, ReportsNonConvergenceWithAdvice)
{
    const auto exec = Executor::create_cpu();
    const auto op = build_format<double>("csr", laplacian_1d(1000, 0.0, exec), {}).op;
    const auto b = Array<double>::from_host(exec, std::vector<double>(1000, 1.0));
    Array<double> x(exec, 1000);
    fill(x, 0.0);
    const SolveResult r = cg(*op, b, x, {1e-12, 5});
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    EXPECT_EQ(r.iterations, 5);
    EXPECT_NE(r.message.find("max_iterations"), std::string::npos) << r.message;
}

TEST(Cg, DetectsIndefiniteMatrixAsBreakdown)
{
    const auto exec = Executor::create_cpu();
    // diag(1, -1): p.Ap = 0 for b = (1, 1) at the first step.
    Csr<double> a{2, 2, Array<index_type>::from_host(exec, std::vector<index_type>{0, 1, 2}),
                  Array<index_type>::from_host(exec, std::vector<index_type>{0, 1}),
                  Array<double>::from_host(exec, std::vector<double>{1.0, -1.0})};
    const auto op = build_format<double>("csr", std::move(a), {}).op;
    const auto b = Array<double>::from_host(exec, std::vector<double>{1.0, 1.0});
    Array<double> x(exec, 2);
    fill(x, 0.0);
    const SolveResult r = cg(*op, b, x, {1e-10, 100});
    EXPECT_EQ(r.status, SolveStatus::breakdown);
    EXPECT_EQ(r.iterations, 1);
    EXPECT_NE(r.message.find("iteration 1"), std::string::npos) << r.message;
}

TEST(Cg, DetectsNanInTheData)
{
    const auto exec = Executor::create_cpu();
    const auto op = build_format<double>("csr", laplacian_1d(10, 0.0, exec), {}).op;
    std::vector<double> bh(10, 1.0);
    bh[3] = std::nan("");
    const auto b = Array<double>::from_host(exec, bh);
    Array<double> x(exec, 10);
    fill(x, 0.0);
    const SolveResult r = cg(*op, b, x, {1e-10, 100});
    EXPECT_EQ(r.status, SolveStatus::not_finite);
}

TEST(Cg, ZeroRightHandSideGivesZero)
{
    const auto exec = Executor::create_cpu();
    const auto op = build_format<double>("csr", laplacian_1d(10, 0.0, exec), {}).op;
    const auto b = Array<double>::from_host(exec, std::vector<double>(10, 0.0));
    auto x = Array<double>::from_host(exec, std::vector<double>(10, 5.0));
    const SolveResult r = cg(*op, b, x, {1e-10, 100});
    EXPECT_TRUE(r.converged());
    for (double v : x.to_host()) EXPECT_EQ(v, 0.0);
}
