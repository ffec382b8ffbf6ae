// Solves of finite data far from 1: a right-hand side of 1e-300 .. 1e-150 or 1e150 .. 1e300
// gives the solution of the unscaled system times the scale, in the same iterations (the
// solve scales by a power of two, exactly); data that is not finite, and an overflow, are
// told apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "linalg/blas1.hpp"
#include "linalg/format_build.hpp"
#include "solver/krylov/krylov.hpp"
#include "krylov_test_support.hpp"

using namespace gpufem;

namespace {

/// The solve of a (csr) for b from 0 with method and variant; x into x_out.
template <typename V>
SolveResult solve_from_zero(const LinearOperator<V>& a, const std::vector<V>& b, KrylovMethod method,
                            KrylovVariant variant, std::vector<V>& x_out)
{
    const auto exec = a.executor();
    const auto rhs = Array<V>::from_host(exec, b);
    Array<V> x(exec, b.size());
    fill(x, V(0));
    SolveOptions options;
    options.tolerance = sizeof(V) == 4 ? 1e-5 : 1e-10;
    options.max_iterations = 2000;
    const SolveResult result = solve(method, variant, a, rhs, x, options);
    x_out = x.to_host();
    return result;
}

/// Solves b and 2^e b for random exponents with smallest <= |e| <= largest, both signs, with
/// every method and variant; the second solution is the first times 2^e.
template <typename V>
void expect_scaled_solutions(int smallest, int largest)
{
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const auto op = build_format<V>("csr", test::grid_matrix<V>(exec, 12, 10, 0, 0, 0.1), {}).op;
    const std::vector<V> b = test::random_vector<V>(120, seed);
    for (const KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab})
        for (const KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged}) {
            for (int trial = 0; trial < 4; ++trial) {
                const int e = (trial % 2 ? 1 : -1) * std::uniform_int_distribution<int>(smallest, largest)(rng);
                std::vector<V> scaled_b(b.size()), scaled_x, unscaled_b(b.size()), x;
                for (std::size_t i = 0; i < b.size(); ++i) scaled_b[i] = std::ldexp(b[i], e);
                // The reference: the scaled data brought back exactly (entries that became
                // subnormal in V lost bits, which the scaled solve cannot know).
                for (std::size_t i = 0; i < b.size(); ++i) unscaled_b[i] = std::ldexp(scaled_b[i], -e);
                const SolveResult plain = solve_from_zero(*op, unscaled_b, method, variant, x);
                ASSERT_TRUE(plain.converged()) << plain.message;
                const SolveResult scaled = solve_from_zero(*op, scaled_b, method, variant, scaled_x);
                const std::string what = fmt::format("{} {} 2^{}", method_name(method), variant_name(variant), e);
                ASSERT_TRUE(scaled.converged()) << what << ": " << scaled.message;
                EXPECT_EQ(scaled.iterations, plain.iterations) << what;
                EXPECT_NEAR(scaled.rhs_norm / std::ldexp(plain.rhs_norm, e), 1.0, 1e-12) << what;
                // Exact but where the scaled values fall below V's normal range.
                double size = 0;
                for (const V value : x) size = std::max(size, std::abs(static_cast<double>(value)));
                const double slack = std::ldexp(size, e) * (sizeof(V) == 4 ? 1e-6 : 1e-14);
                for (std::size_t i = 0; i < x.size(); ++i)
                    ASSERT_NEAR(scaled_x[i], std::ldexp(static_cast<double>(x[i]), e), slack) << what << " row " << i;
            }
        }
}

}  // namespace

TEST(ScaledSolves, TinyAndHugeRightHandSidesSolveAsScaledCopiesInDouble)
{
    expect_scaled_solutions<double>(499, 996);  // 1e-300 .. 1e-150 and 1e150 .. 1e300
}

TEST(ScaledSolves, FloatDataNearTheEdgesOfItsRangeSolvesToo)
{
    expect_scaled_solutions<float>(60, 120);  // 1e-36 .. 1e-18 and 1e18 .. 1e36
}

TEST(ScaledSolves, NotFiniteDataIsToldApartFromOverflow)
{
    const auto exec = Executor::create_cpu();
    const auto op = build_format<double>("csr", test::grid_matrix<double>(exec, 8, 8), {}).op;
    std::vector<double> b(64, 1.0), x;
    b[17] = std::numeric_limits<double>::quiet_NaN();
    const SolveResult nan = solve_from_zero(*op, b, KrylovMethod::cg, KrylovVariant::merged, x);
    EXPECT_EQ(nan.status, SolveStatus::not_finite);
    EXPECT_NE(nan.message.find("data not finite: the right-hand side has NaN or Inf (first at row 17)"),
              std::string::npos) << nan.message;

    // A matrix of 1e-200 and b of 1e200: every value given is finite, the solution (1e400)
    // is not.
    auto huge = test::grid_matrix<double>(exec, 8, 8);
    scale(1e-200, huge.values);
    const auto big = build_format<double>("csr", std::move(huge), {}).op;
    for (const KrylovVariant variant : {KrylovVariant::reference, KrylovVariant::merged}) {
        const SolveResult over = solve_from_zero(*big, std::vector<double>(64, 1e200), KrylovMethod::cg, variant, x);
        EXPECT_EQ(over.status, SolveStatus::not_finite) << over.message;
        EXPECT_NE(over.message.find("overflowed double's range"), std::string::npos) << over.message;
        EXPECT_NE(over.message.find("scale your data"), std::string::npos) << over.message;
        EXPECT_EQ(over.message.find("precision: double"), std::string::npos) << over.message;
    }
}
