#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <random>
#include <tuple>
#include <gmsh.h>

#include "assembly/quadrature.hpp"
#include "assembly/reference_element.hpp"
#include "element_test_support.hpp"
#include "mesh/gmsh_reference_table.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/shapes/cell_shape.hpp"
#include "random_values.hpp"

using namespace gpufem;

using test::reference_monomial_integral;

TEST(Quadrature, IntegratesMonomialsExactlyUpToItsDegree)
{
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron, ElementType::prism,
                             ElementType::pyramid}) {
        const int dim = element_dimension(type);
        for (int degree = 0; degree <= 11; ++degree) {
            const QuadratureRule rule = quadrature_rule(type, degree);
            for (int a = 0; a <= degree; ++a)
                for (int b = 0; b <= (dim > 1 ? degree - a : 0); ++b)
                    for (int c = 0; c <= (dim > 2 ? degree - a - b : 0); ++c) {
                        double sum = 0;
                        for (int q = 0; q < rule.size(); ++q) {
                            const double* x = &rule.points[q * dim];
                            sum += rule.weights[q] * std::pow(x[0], a) *
                                   (dim > 1 ? std::pow(x[1], b) : 1.0) *
                                   (dim > 2 ? std::pow(x[2], c) : 1.0);
                        }
                        EXPECT_NEAR(sum, reference_monomial_integral(type, a, b, c), 1e-13)
                            << element_type_name(type) << " degree " << degree << " monomial "
                            << a << b << c;
                    }
        }
    }
}

TEST(ReferenceElement, BasisIsNodalAndGradientsMatchDifferences)
{
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron, ElementType::prism,
                             ElementType::pyramid}) {
        const int dim = element_dimension(type), n = element_node_count(type);
        const auto nodes = reference_nodes(type);
        std::vector<double> N(n), dN(n * dim), Np(n), Nm(n), scratch(n * dim);
        for (int j = 0; j < n; ++j) {
            lagrange1_basis(type, &nodes[j * dim], N.data(), dN.data());
            for (int i = 0; i < n; ++i) EXPECT_NEAR(N[i], i == j ? 1.0 : 0.0, 1e-15);
        }
        const double xi[3] = {0.21, 0.17, 0.33};
        lagrange1_basis(type, xi, N.data(), dN.data());
        for (int c = 0; c < dim; ++c) {
            double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]};
            xp[c] += 1e-6, xm[c] -= 1e-6;
            lagrange1_basis(type, xp, Np.data(), scratch.data());
            lagrange1_basis(type, xm, Nm.data(), scratch.data());
            for (int i = 0; i < n; ++i) EXPECT_NEAR(dN[i * dim + c], (Np[i] - Nm[i]) / 2e-6, 1e-8);
        }
    }
}

TEST(ReferenceElement, BasisMatchesGmsh)
{
    // Gmsh element types: 1 line, 2 triangle, 3 quadrangle, 4 tetrahedron, 5 hexahedron,
    // 6 prism, 7 pyramid (its rational first-order basis too).
    const std::pair<ElementType, int> types[] = {
        {ElementType::line, 1},        {ElementType::triangle, 2},    {ElementType::quadrilateral, 3},
        {ElementType::tetrahedron, 4}, {ElementType::hexahedron, 5},  {ElementType::prism, 6},
        {ElementType::pyramid, 7}};
    gmsh::initialize();
    gmsh::option::setNumber("General.Terminal", 0);
    for (const auto& [type, gmsh_type] : types) {
        const int dim = element_dimension(type), n = element_node_count(type);
        const ReferenceElement ref = make_reference_element(type, 1, 4);
        std::vector<double> local;  // Gmsh wants 3 coordinates per point
        for (int q = 0; q < ref.num_points(); ++q)
            for (int c = 0; c < 3; ++c) local.push_back(c < dim ? ref.rule.points[q * dim + c] : 0.0);
        int comps = 0, orientations = 0;
        std::vector<double> values, grads;
        gmsh::model::mesh::getBasisFunctions(gmsh_type, local, "Lagrange", comps, values, orientations);
        gmsh::model::mesh::getBasisFunctions(gmsh_type, local, "GradLagrange", comps, grads, orientations);
        ASSERT_EQ(values.size(), ref.values.size()) << element_type_name(type);
        for (std::size_t k = 0; k < values.size(); ++k)
            EXPECT_NEAR(values[k], ref.values[k], 1e-14) << element_type_name(type);
        for (int q = 0; q < ref.num_points(); ++q)
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < dim; ++c)
                    EXPECT_NEAR(grads[(q * n + i) * 3 + c], ref.gradients[(q * n + i) * dim + c], 1e-14)
                        << element_type_name(type);
    }
    gmsh::finalize();
}

/// The sum of a rule over the monomial x^a y^b z^c.
static double apply_rule(const QuadratureRule& rule, int a, int b, int c)
{
    double sum = 0;
    for (int q = 0; q < rule.size(); ++q) {
        const double* x = &rule.points[static_cast<std::size_t>(q) * rule.dim];
        sum += rule.weights[q] * std::pow(x[0], a) * std::pow(x[1], b) * (rule.dim > 2 ? std::pow(x[2], c) : 1.0);
    }
    return sum;
}

TEST(Quadrature, GrundmannMollerIsExactToItsOddDegreeOnSimplicesAndNotBeyond)
{
    for (ElementType type : {ElementType::triangle, ElementType::tetrahedron}) {
        const int dim = element_dimension(type);
        for (int degree = 0; degree <= 11; ++degree) {
            const QuadratureRule rule = grundmann_moller_rule(dim, degree);
            const int exact = degree <= 1 ? 1 : 2 * (degree / 2) + 1;  // the rule's degree 2s+1
            // Points: sum over i of C(s - i + dim, dim).
            int points = 0;
            for (int i = 0; i <= exact / 2; ++i) {
                int binomial = 1;
                for (int j = 1; j <= dim; ++j) binomial = binomial * (exact / 2 - i + j) / j;
                points += binomial;
            }
            EXPECT_EQ(rule.size(), points) << element_type_name(type) << " degree " << degree;
            for (int a = 0; a <= exact; ++a)
                for (int b = 0; b <= exact - a; ++b)
                    for (int c = 0; c <= (dim > 2 ? exact - a - b : 0); ++c)
                        EXPECT_NEAR(apply_rule(rule, a, b, c), reference_monomial_integral(type, a, b, c), 1e-13)
                            << element_type_name(type) << " degree " << degree << " monomial " << a << b << c;
            // One degree more is not integrated exactly (the test would pass a rule of any
            // higher degree otherwise).
            const int d = exact + 1;
            EXPECT_GT(std::abs(apply_rule(rule, d, 0, 0) - reference_monomial_integral(type, d, 0, 0)), 1e-12)
                << element_type_name(type) << " degree " << degree;
        }
    }
    // On tetrahedra from degree 3 on it is the rule with the fewest points.
    EXPECT_EQ(fewest_points_rule(ElementType::tetrahedron, 6).size(), 35);
    EXPECT_EQ(quadrature_rule(ElementType::tetrahedron, 6).size(), 64);
    EXPECT_EQ(fewest_points_rule(ElementType::triangle, 6).size(), 16);
    EXPECT_EQ(fewest_points_rule(ElementType::hexahedron, 6).size(), 64);
}

TEST(Quadrature, CollapsedGaussJacobiUsesDegreeOver2Plus1PointsPerDirection)
{
    for (int degree = 3; degree <= 10; ++degree) {
        const int n = degree / 2 + 1;
        EXPECT_EQ(quadrature_rule(ElementType::triangle, degree).size(), n * n);
        EXPECT_EQ(quadrature_rule(ElementType::tetrahedron, degree).size(), n * n * n);
        for (double w : quadrature_rule(ElementType::tetrahedron, degree).weights) EXPECT_GT(w, 0);
    }
}

TEST(ReferenceElement, EveryOrderIsAPartitionOfUnityAndReproducesTheCoordinates)
{
    // sum_i N_i = 1, sum_i N_i xi_i = xi and sum_i xi_i (x) grad N_i = I at every point, with
    // xi_i Gmsh's reference nodes: the tables come in the nodes' order.
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const int dim = element_dimension(type);
        for (int order = 1; order <= 4; ++order) {
            const ReferenceElement ref = make_reference_element(type, order, 2 * order);
            ASSERT_EQ(ref.nodes, lagrange_node_count(type, order));
            ASSERT_EQ(ref.degree, order);
            const auto nodes = lagrange_reference_nodes(type, order);
            for (int q = 0; q < ref.num_points(); ++q) {
                double sum = 0, x[3] = {0, 0, 0}, jac[3][3] = {};
                for (int i = 0; i < ref.nodes; ++i) {
                    const double n = ref.values[q * ref.nodes + i];
                    sum += n;
                    for (int c = 0; c < dim; ++c) {
                        x[c] += n * nodes[i * dim + c];
                        for (int c2 = 0; c2 < dim; ++c2)
                            jac[c][c2] += nodes[i * dim + c] *
                                          ref.gradients[(q * ref.nodes + i) * dim + c2];
                    }
                }
                EXPECT_NEAR(sum, 1.0, 1e-12) << element_type_name(type) << " order " << order;
                for (int c = 0; c < dim; ++c) {
                    EXPECT_NEAR(x[c], ref.rule.points[q * dim + c], 1e-12)
                        << element_type_name(type) << " order " << order;
                    for (int c2 = 0; c2 < dim; ++c2)
                        EXPECT_NEAR(jac[c][c2], c == c2 ? 1.0 : 0.0, 1e-11)
                            << element_type_name(type) << " order " << order;
                }
            }
        }
    }
}

TEST(ReferenceElement, OrderOneKeepsTheHandWrittenBasisWhichEqualsTheGeneralOne)
{
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const ReferenceElement ref = make_reference_element(type, 1, 3);
        std::vector<double> values, gradients;
        lagrange_basis(type, 1, ref.rule.points, values, gradients);
        ASSERT_EQ(values.size(), ref.values.size());
        ASSERT_EQ(gradients.size(), ref.gradients.size());
        for (std::size_t k = 0; k < values.size(); ++k)
            EXPECT_NEAR(values[k], ref.values[k], 1e-14);
        for (std::size_t k = 0; k < gradients.size(); ++k)
            EXPECT_NEAR(gradients[k], ref.gradients[k], 1e-14);
    }
}

TEST(ReferenceElement, LowOrderNodesAndBasesWithoutGmshEqualGmshs)
{
    // gpufem's own order-1 and order-2 bases (mesh/low_order_bases.hpp), the simplices' of
    // order 3 and 4 and the pyramids' of order 1 to 4 (mesh/vandermonde_basis.hpp) and its
    // tabled nodes, which spare a run the loading of Gmsh's library, against
    // Gmsh's own: the nodes in Gmsh's order, and the bases at random points of each reference
    // shape. Gmsh's tables are all taken first, in one session of its own.
    std::mt19937 rng(test::random_seed());
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    struct Element {
        ElementType type;
        int order, gmsh_type;
        std::vector<double> nodes, points, local, values, gradients;
    };
    std::vector<Element> elements = {
        {ElementType::line, 1, 1},          {ElementType::line, 2, 8},          {ElementType::triangle, 1, 2},
        {ElementType::triangle, 2, 9},      {ElementType::quadrilateral, 1, 3}, {ElementType::quadrilateral, 2, 10},
        {ElementType::tetrahedron, 1, 4},   {ElementType::tetrahedron, 2, 11},  {ElementType::hexahedron, 1, 5},
        {ElementType::hexahedron, 2, 12},   {ElementType::prism, 1, 6},         {ElementType::pyramid, 1, 7},
        {ElementType::triangle, 3, 21},     {ElementType::triangle, 4, 23},     {ElementType::tetrahedron, 3, 29},
        {ElementType::tetrahedron, 4, 30},  {ElementType::pyramid, 2, 14},      {ElementType::pyramid, 3, 118},
        {ElementType::pyramid, 4, 119}};
    for (Element& e : elements) {
        // Random points inside the reference shape (simplices: sum <= 1; boxes: [-1, 1]^d; the
        // prism's triangle times [-1, 1]).
        const int dim = element_dimension(e.type);
        const bool simplex_part = e.type == ElementType::triangle || e.type == ElementType::tetrahedron || e.type == ElementType::prism;
        for (int p = 0; p < 7; ++p) {
            double x[3] = {unit(rng), unit(rng), unit(rng)};
            if (simplex_part) {
                const int simplex_dim = e.type == ElementType::prism ? 2 : dim;
                double sum = 0;
                for (int d = 0; d < simplex_dim; ++d) sum += x[d];
                if (sum > 1)
                    for (int d = 0; d < simplex_dim; ++d) x[d] /= 1.5 * sum;
                if (e.type == ElementType::prism) x[2] = 2 * x[2] - 1;
            } else if (e.type == ElementType::pyramid) {
                // Inside the pyramid (base [-1, 1]^2, apex (0, 0, 1)); the last point the apex,
                // where the rational functions take their limits along the axis.
                x[0] = p == 6 ? 0.0 : (2 * x[0] - 1) * (1 - x[2]);
                x[1] = p == 6 ? 0.0 : (2 * x[1] - 1) * (1 - x[2]);
                if (p == 6) x[2] = 1.0;
            } else {
                for (double& v : x) v = 2 * v - 1;
            }
            for (int c = 0; c < 3; ++c) {
                if (c < dim) e.points.push_back(x[c]);
                e.local.push_back(c < dim ? x[c] : 0.0);
            }
        }
    }
    gmsh::initialize();
    gmsh::option::setNumber("General.Terminal", 0);
    for (Element& e : elements) {
        std::string name;
        int gmsh_dim = 0, gmsh_order = 0, nodes = 0, primary = 0, components = 0, orientations = 0;
        gmsh::model::mesh::getElementProperties(e.gmsh_type, name, gmsh_dim, gmsh_order, nodes, e.nodes, primary);
        gmsh::model::mesh::getBasisFunctions(e.gmsh_type, e.local, "Lagrange", components, e.values, orientations);
        gmsh::model::mesh::getBasisFunctions(e.gmsh_type, e.local, "GradLagrange", components, e.gradients, orientations);
    }
    gmsh::finalize();
    for (const Element& e : elements) {
        const int dim = element_dimension(e.type);
        const std::string what = std::string(element_type_name(e.type)) + " of order " + std::to_string(e.order);
        const std::vector<double> own = equispaced_reference_nodes(e.type, e.order);
        ASSERT_EQ(own.size(), e.nodes.size()) << what;
        for (std::size_t k = 0; k < own.size(); ++k) EXPECT_NEAR(own[k], e.nodes[k], 1e-15) << what << " entry " << k;
        std::vector<double> values, gradients;
        lagrange_basis(e.type, e.order, e.points, values, gradients);
        ASSERT_EQ(values.size(), e.values.size()) << what;
        for (std::size_t k = 0; k < values.size(); ++k) EXPECT_NEAR(values[k], e.values[k], 1e-13) << what;
        // Both sides invert a Vandermonde matrix in double precision (the pyramid's of order 4 is
        // 55 x 55, its functions have powers of 1 / (1 - w)): their gradients agree to a few
        // units of 1e-12 relative to the point's largest gradient, not absolutely.
        const std::size_t n = own.size() / static_cast<std::size_t>(dim);
        for (std::size_t p = 0; p < 7; ++p) {
            double scale = 1.0;
            for (std::size_t j = 0; j < n; ++j)
                for (int c = 0; c < dim; ++c) scale = std::max(scale, std::abs(e.gradients[(p * n + j) * 3 + c]));
            for (std::size_t j = 0; j < n; ++j)
                for (int c = 0; c < dim; ++c)
                    EXPECT_NEAR(gradients[(p * n + j) * dim + c], e.gradients[(p * n + j) * 3 + c], 1e-11 * scale)
                        << what << " point " << p;
        }
    }
}

TEST(ReferenceElement, TheBuildTimeTableHoldsGmshsNodesOfEveryTypeGpufemUses)
{
    // gmsh_reference_table, written from Gmsh when gpufem is built, against the Gmsh library
    // the tests run: every MSH type of every shape's gmsh_basis_types, exactly.
    gmsh::initialize();
    gmsh::option::setNumber("General.Terminal", 0);
    int checked = 0;
    for (int t = 0; t < element_type_count; ++t) {
        const auto type = static_cast<ElementType>(t);
        const ShapeTraits& shape = cell_shape(type);
        for (std::size_t k = 0; k < shape.gmsh_basis_types.size(); ++k) {
            const int gmsh_type = shape.gmsh_basis_types[k];
            if (gmsh_type < 0) continue;
            std::string name;
            int dim = 0, order = 0, nodes = 0, primary = 0;
            std::vector<double> coordinates;
            gmsh::model::mesh::getElementProperties(gmsh_type, name, dim, order, nodes, coordinates, primary);
            const std::span<const double> table = gmsh_reference_table(gmsh_type);
            EXPECT_EQ(std::vector<double>(table.begin(), table.end()), coordinates) << name;
            ++checked;
        }
    }
    gmsh::finalize();
    EXPECT_GE(checked, 30);
    EXPECT_TRUE(gmsh_reference_table(15).empty()) << "a type gpufem does not use";
}
