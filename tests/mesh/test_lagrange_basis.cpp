// Lagrange bases from Gmsh: partition of unity, Kronecker property at the reference nodes,
// gradients against finite differences and exact reproduction of polynomials, for every
// shape and order 1..4, and lines, quadrilaterals and hexahedra of order 5..8 (GLL nodes).
#include <array>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "mesh/gll_points.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// One shape and order.
struct BasisCase {
    ElementType type;
    int degree;
};

std::ostream& operator<<(std::ostream& os, const BasisCase& c)
{
    return os << element_type_name(c.type) << "_order" << c.degree;
}

std::vector<BasisCase> basis_cases()
{
    std::vector<BasisCase> cases;
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron})
        for (int k = 1; k <= max_lagrange_degree(type); ++k) cases.push_back({type, k});
    return cases;
}

bool is_simplex(ElementType type)
{
    return type == ElementType::triangle || type == ElementType::tetrahedron;
}

/// Random points inside Gmsh's reference shape (unit simplex, or [-1,1]^d for lines and
/// boxes), away from its boundary by `margin`; dim coordinates each.
std::vector<double> random_points(ElementType type, int count, double margin, std::mt19937& rng)
{
    const int dim = element_dimension(type);
    std::vector<double> points;
    if (is_simplex(type)) {
        std::uniform_real_distribution<double> u(margin, 1.0);
        while (static_cast<int>(points.size()) < count * dim) {
            double x[3], sum = 0;
            for (int c = 0; c < dim; ++c) sum += x[c] = u(rng);
            if (sum > 1.0 - margin) continue;
            points.insert(points.end(), x, x + dim);
        }
    } else {
        std::uniform_real_distribution<double> u(-1.0 + margin, 1.0 - margin);
        for (int i = 0; i < count * dim; ++i) points.push_back(u(rng));
    }
    return points;
}

/// Monomial exponents of the polynomials the basis reproduces exactly: total degree <= k on
/// simplices, degree <= k in each variable on lines and boxes.
std::vector<std::array<int, 3>> exponents(ElementType type, int k)
{
    const int dim = element_dimension(type);
    std::vector<std::array<int, 3>> result;
    for (int a = 0; a <= k; ++a)
        for (int b = 0; b <= (dim > 1 ? k : 0); ++b)
            for (int c = 0; c <= (dim > 2 ? k : 0); ++c)
                if (!is_simplex(type) || a + b + c <= k) result.push_back({a, b, c});
    return result;
}

double monomial(const std::array<int, 3>& e, const double* x, int dim)
{
    double value = 1;
    for (int c = 0; c < dim; ++c) value *= std::pow(x[c], e[c]);
    return value;
}

class LagrangeBasisTest : public ::testing::TestWithParam<BasisCase> {};

TEST_P(LagrangeBasisTest, InterpolatesAndDifferentiates)
{
    const auto [type, k] = GetParam();
    const int dim = element_dimension(type), n = lagrange_node_count(type, k);
    std::mt19937 rng(17 * k + static_cast<int>(type));

    // Kronecker property at the reference nodes. (Gmsh evaluates its bases through monomials:
    // roundoff reaches 1e-12 for the hexahedron of order 4, hence 1e-10 below.)
    const std::vector<double> nodes = lagrange_reference_nodes(type, k);
    ASSERT_EQ(nodes.size(), static_cast<std::size_t>(n * dim));
    std::vector<double> values, gradients;
    lagrange_basis(type, k, nodes, values, gradients);
    ASSERT_EQ(values.size(), static_cast<std::size_t>(n * n));
    ASSERT_EQ(gradients.size(), static_cast<std::size_t>(n * n * dim));
    for (int p = 0; p < n; ++p)
        for (int i = 0; i < n; ++i)
            ASSERT_NEAR(values[p * n + i], p == i ? 1.0 : 0.0, 1e-10) << "node " << p << ", function " << i;

    // Random points: partition of unity, gradients sum to zero, polynomials reproduced.
    const int count = 20;
    const std::vector<double> points = random_points(type, count, 0.0, rng);
    lagrange_basis(type, k, points, values, gradients);
    ASSERT_EQ(values.size(), static_cast<std::size_t>(count * n));
    ASSERT_EQ(gradients.size(), static_cast<std::size_t>(count * n * dim));
    const auto polynomials = exponents(type, k);
    for (int p = 0; p < count; ++p) {
        const double* x = &points[p * dim];
        double sum = 0, gradient_sum[3] = {};
        for (int i = 0; i < n; ++i) {
            sum += values[p * n + i];
            for (int c = 0; c < dim; ++c) gradient_sum[c] += gradients[(p * n + i) * dim + c];
        }
        ASSERT_NEAR(sum, 1.0, 1e-10);
        for (int c = 0; c < dim; ++c) ASSERT_NEAR(gradient_sum[c], 0.0, 1e-10);
        for (const auto& e : polynomials) {
            double interpolated = 0;
            for (int i = 0; i < n; ++i)
                interpolated += values[p * n + i] * monomial(e, &nodes[i * dim], dim);
            ASSERT_NEAR(interpolated, monomial(e, x, dim), 1e-10)
                << "x^" << e[0] << " y^" << e[1] << " z^" << e[2];
        }
    }

    // Gradients against central differences (inner points, so the stencil stays inside).
    const double h = 1e-6;
    const std::vector<double> inner = random_points(type, 5, 0.05, rng);
    std::vector<double> shifted;
    for (std::size_t p = 0; p < inner.size() / dim; ++p)
        for (int c = 0; c < dim; ++c)
            for (double sign : {1.0, -1.0}) {
                for (int d = 0; d < dim; ++d)
                    shifted.push_back(inner[p * dim + d] + (d == c ? sign * h : 0.0));
            }
    std::vector<double> shifted_values, unused;
    lagrange_basis(type, k, inner, values, gradients);
    lagrange_basis(type, k, shifted, shifted_values, unused);
    for (std::size_t p = 0; p < inner.size() / dim; ++p)
        for (int c = 0; c < dim; ++c) {
            const double* plus = &shifted_values[((p * dim + c) * 2) * n];
            const double* minus = plus + n;
            for (int i = 0; i < n; ++i)
                ASSERT_NEAR(gradients[(p * n + i) * dim + c], (plus[i] - minus[i]) / (2 * h), 1e-6)
                    << "point " << p << ", function " << i << ", d/dx" << c;
        }
}

INSTANTIATE_TEST_SUITE_P(AllShapesAndOrders, LagrangeBasisTest, ::testing::ValuesIn(basis_cases()),
                         [](const auto& info) {
                             std::ostringstream name;
                             name << info.param;
                             return name.str();
                         });

TEST(LagrangeBasis, VerticesComeFirst)
{
    EXPECT_EQ(lagrange_reference_nodes(ElementType::quadrilateral, 3).size(), 32u);
    const std::vector<double> tri = lagrange_reference_nodes(ElementType::triangle, 2);
    EXPECT_EQ(tri, (std::vector<double>{0, 0, 1, 0, 0, 1, 0.5, 0, 0.5, 0.5, 0, 0.5}));
    const std::vector<double> hex = lagrange_reference_nodes(ElementType::hexahedron, 2);
    EXPECT_EQ(std::vector<double>(hex.begin(), hex.begin() + 6), (std::vector<double>{-1, -1, -1, 1, -1, -1}));
}

/// P_n(x) by the three-term recurrence.
double legendre(int n, double x)
{
    double previous = 1.0, current = x;
    if (n == 0) return 1.0;
    for (int k = 2; k <= n; ++k) {
        const double next = ((2.0 * k - 1.0) * x * current - (k - 1.0) * previous) / k;
        previous = current;
        current = next;
    }
    return current;
}

TEST(GllPoints, IntegrateTheirDegreeExactlyWithTheLobattoWeights)
{
    // Published values for 6 points (degree 5).
    const std::vector<double> six = gll_points(6);
    const double expected[6] = {-1.0, -0.7650553239294647, -0.2852315164806451,
                                0.2852315164806451, 0.7650553239294647, 1.0};
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(six[static_cast<std::size_t>(i)], expected[i], 1e-15);
    // n points with w_i = 2 / (n (n-1) P_{n-1}(x_i)^2) integrate x^m exactly for m <= 2n - 3:
    // only the Lobatto points do.
    for (int n = 2; n <= 10; ++n) {
        const std::vector<double> x = gll_points(n);
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(x[static_cast<std::size_t>(i)], -x[static_cast<std::size_t>(n - 1 - i)]) << n;
            if (i > 0) EXPECT_LT(x[static_cast<std::size_t>(i - 1)], x[static_cast<std::size_t>(i)]) << n;
        }
        for (int m = 0; m <= 2 * n - 3; ++m) {
            double sum = 0;
            for (const double xi : x) sum += 2.0 / (n * (n - 1.0) * std::pow(legendre(n - 1, xi), 2)) * std::pow(xi, m);
            EXPECT_NEAR(sum, m % 2 == 0 ? 2.0 / (m + 1) : 0.0, 1e-14) << n << " points, x^" << m;
        }
    }
    EXPECT_THROW(gll_points(1), std::invalid_argument);
}

TEST(LagrangeBasis, BoxesFromDegreeFiveHaveGllNodesInGmshsOrder)
{
    EXPECT_FALSE(has_gll_nodes(ElementType::hexahedron, 4));
    EXPECT_FALSE(has_gll_nodes(ElementType::triangle, 5));
    for (int k = 5; k <= 8; ++k) {
        const std::vector<double> line = gll_points(k + 1);
        EXPECT_EQ(line_node_positions(k), line);
        std::vector<double> gmsh_line = {line.front(), line.back()};  // the vertices first
        gmsh_line.insert(gmsh_line.end(), line.begin() + 1, line.end() - 1);
        EXPECT_EQ(lagrange_reference_nodes(ElementType::line, k), gmsh_line);
        for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron}) {
            ASSERT_TRUE(has_gll_nodes(type, k));
            const int dim = element_dimension(type);
            const std::vector<double> nodes = lagrange_reference_nodes(type, k);
            const std::vector<double> gmsh = equispaced_reference_nodes(type, k);
            ASSERT_EQ(nodes.size(), static_cast<std::size_t>(lagrange_node_count(type, k) * dim));
            ASSERT_EQ(gmsh.size(), nodes.size());
            for (std::size_t j = 0; j < nodes.size(); ++j) {  // Gmsh's node i of a line is GLL point i
                const double steps = (gmsh[j] + 1.0) * k / 2.0;
                ASSERT_NEAR(steps, std::round(steps), 1e-12);
                EXPECT_EQ(nodes[j], line[static_cast<std::size_t>(std::lround(steps))]);
            }
            for (std::size_t j = 0; j < (dim == 2 ? 4u : 8u) * dim; ++j)  // the vertices first
                EXPECT_EQ(std::abs(nodes[j]), 1.0);
        }
    }
    EXPECT_EQ(line_node_positions(4), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
}

TEST(LagrangeBasis, BadArgumentsAreNamed)
{
    std::vector<double> values, gradients;
    try {
        lagrange_basis(ElementType::triangle, 5, {0.2, 0.2}, values, gradients);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("order 5"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("triangles"), std::string::npos) << e.what();
    }
    EXPECT_THROW(lagrange_reference_nodes(ElementType::hexahedron, 0), std::invalid_argument);
    try {
        lagrange_basis(ElementType::tetrahedron, 2, {0.2, 0.2}, values, gradients);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("tetrahedra of order 2"), std::string::npos) << e.what();
    }
    lagrange_basis(ElementType::quadrilateral, 2, {}, values, gradients);
    EXPECT_TRUE(values.empty());
    EXPECT_TRUE(gradients.empty());
}

}  // namespace
}  // namespace gpufem
