#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "linalg/blas1.hpp"
#include "random_csr.hpp"
#include "value_types.hpp"

using namespace gpufem;

GPUFEM_VALUE_TYPED_SUITE(Blas1Cpu);

TYPED_TEST(Blas1Cpu, OperationsMatchScalarLoops)
{
    using V = TypeParam;
    std::mt19937 rng(3);
    const std::size_t n = 1237;
    const auto exec = Executor::create_cpu();
    const auto xh = test::random_vector<V>(n, rng), yh = test::random_vector<V>(n, rng);
    const auto x = Array<V>::from_host(exec, xh);
    auto y = Array<V>::from_host(exec, yh);

    long double expect_dot = 0;
    for (std::size_t i = 0; i < n; ++i) expect_dot += (long double)xh[i] * yh[i];
    EXPECT_NEAR(dot(x, y), (double)expect_dot, 1e-12 * n);
    EXPECT_NEAR(nrm2(x), std::sqrt(dot(x, x)), 1e-12);

    axpy(V(0.5), x, y);
    auto yv = y.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(yv[i], yh[i] + V(0.5) * xh[i]);

    xpay(x, V(-2), y);
    auto zv = y.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(zv[i], xh[i] + V(-2) * yv[i]);

    scale(V(3), y);
    auto sv = y.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sv[i], V(3) * zv[i]);

    fill(y, V(7));
    for (V v : y.to_host()) ASSERT_EQ(v, V(7));
}

TEST(Blas1, SizeMismatchThrows)
{
    const auto exec = Executor::create_cpu();
    Array<double> a(exec, 3), b(exec, 4);
    EXPECT_THROW(dot(a, b), std::invalid_argument);
    EXPECT_THROW(axpy(1.0, a, b), std::invalid_argument);
}
