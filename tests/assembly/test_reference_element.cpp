#include <gtest/gtest.h>

#include <cmath>
#include <gmsh.h>

#include "assembly/reference_element.hpp"

using namespace gpufem;

namespace {

/// Exact integral of x^a y^b z^c over the reference shape.
double exact_monomial(ElementType type, int a, int b, int c)
{
    auto fact = [](int n) { double f = 1; for (int i = 2; i <= n; ++i) f *= i; return f; };
    auto line = [](int p) { return p % 2 ? 0.0 : 2.0 / (p + 1); };  // over [-1, 1]
    switch (type) {
    case ElementType::line: return line(a);
    case ElementType::quadrilateral: return line(a) * line(b);
    case ElementType::hexahedron: return line(a) * line(b) * line(c);
    case ElementType::triangle: return fact(a) * fact(b) / fact(a + b + 2);
    case ElementType::tetrahedron: return fact(a) * fact(b) * fact(c) / fact(a + b + c + 3);
    }
    return 0;
}

}  // namespace

TEST(Quadrature, IntegratesMonomialsExactlyUpToItsDegree)
{
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const int dim = element_dimension(type);
        for (int degree = 0; degree <= 9; ++degree) {
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
                        EXPECT_NEAR(sum, exact_monomial(type, a, b, c), 1e-13)
                            << element_type_name(type) << " degree " << degree << " monomial "
                            << a << b << c;
                    }
        }
    }
}

TEST(ReferenceElement, BasisIsNodalAndGradientsMatchDifferences)
{
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
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
    // Gmsh element types: 1 line, 2 triangle, 3 quadrangle, 4 tetrahedron, 5 hexahedron.
    const std::pair<ElementType, int> types[] = {
        {ElementType::line, 1},        {ElementType::triangle, 2},    {ElementType::quadrilateral, 3},
        {ElementType::tetrahedron, 4}, {ElementType::hexahedron, 5}};
    gmsh::initialize();
    gmsh::option::setNumber("General.Terminal", 0);
    for (const auto& [type, gmsh_type] : types) {
        const int dim = element_dimension(type), n = element_node_count(type);
        const ReferenceElement ref = make_reference_element(type, 4);
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
