// Element matrices of orders 2-4: the P2 triangle and the Q2 square against hand-computed
// matrices; for every type and order: symmetry, zero row sums (constants in the kernel),
// exact energy of degree-k polynomials on straight cells and of linear functions on curved
// (isoparametric) cells, the assembled patch test, and the area of a disk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "assembly/jacobian.hpp"
#include "element_test_support.hpp"
#include "high_order_meshes.hpp"

using namespace gpufem;
using test::cpu_element;
using test::expect_matrix;

namespace {

constexpr ElementType all_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                     ElementType::tetrahedron, ElementType::hexahedron};

/// A fixed affine map x = A xi + b with positive determinant (2D: the upper-left block).
constexpr double affine_a[3][3] = {{1.2, 0.3, 0.1}, {-0.2, 0.9, 0.25}, {0.15, -0.1, 1.1}};
constexpr double affine_b[3] = {0.3, -0.2, 0.5};

std::array<double, 3> affine(int dim, const double* xi)
{
    std::array<double, 3> x = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
        x[d] = affine_b[d];
        for (int c = 0; c < dim; ++c) x[d] += affine_a[d][c] * xi[c];
    }
    return x;
}

/// The affine map plus a smooth bump: the cell's high-order nodes leave the straight positions.
std::array<double, 3> curved(int dim, const double* xi)
{
    std::array<double, 3> x = affine(dim, xi);
    x[0] += 0.05 * std::sin(1.3 * xi[1] + 0.4);
    x[1] += 0.05 * std::cos(0.7 * xi[0]);
    if (dim == 3) x[2] += 0.04 * std::sin(xi[0] * xi[1] + xi[2]);
    return x;
}

/// A term c * xi0^a xi1^b xi2^e of a polynomial in reference coordinates.
struct Monomial {
    double c;
    int p[3];
};

/// xi0^k + 2 xi0 xi1^(k-1) + xi1^k (+ xi1 xi2^(k-1) + xi2^k in 3D): degree k, in P_k and Q_k.
std::vector<Monomial> degree_k_polynomial(int dim, int k)
{
    std::vector<Monomial> p = {{1, {k, 0, 0}}, {2, {1, k - 1, 0}}, {1, {0, k, 0}}};
    if (dim == 3) p.insert(p.end(), {{1, {0, 1, k - 1}}, {1, {0, 0, k}}});
    return p;
}

double evaluate(const std::vector<Monomial>& p, const double* xi, int dim)
{
    double s = 0;
    for (const Monomial& m : p) {
        double t = m.c;
        for (int c = 0; c < dim; ++c) t *= std::pow(xi[c], m.p[c]);
        s += t;
    }
    return s;
}

/// d p / d xi_c as monomials.
std::vector<Monomial> derivative(const std::vector<Monomial>& p, int c)
{
    std::vector<Monomial> out;
    for (Monomial m : p) {
        if (m.p[c] == 0) continue;
        m.c *= m.p[c];
        --m.p[c];
        out.push_back(m);
    }
    return out;
}

/// int over the affine image of the reference cell of |grad_x p(xi(x))|^2 dx, exactly:
/// grad_xi p^T A^-1 A^-T grad_xi p |det A| integrated monomial by monomial.
double exact_affine_energy(ElementType type, const std::vector<Monomial>& p)
{
    const int dim = element_dimension(type);
    double inv[3][3] = {}, det = 0;
    if (dim == 2) {
        double J[2][2] = {{affine_a[0][0], affine_a[0][1]}, {affine_a[1][0], affine_a[1][1]}},
               I[2][2];
        det = invert_jacobian<2>(J, I);
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) inv[r][c] = I[r][c];
    } else {
        double J[3][3], I[3][3];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) J[r][c] = affine_a[r][c];
        det = invert_jacobian<3>(J, I);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) inv[r][c] = I[r][c];
    }
    double energy = 0;
    for (int c = 0; c < dim; ++c)
        for (int c2 = 0; c2 < dim; ++c2) {
            double m = 0;  // (A^-1 A^-T)_{c c2}
            for (int d = 0; d < dim; ++d) m += inv[c][d] * inv[c2][d];
            for (const Monomial& a : derivative(p, c))
                for (const Monomial& b : derivative(p, c2))
                    energy += m * a.c * b.c *
                              test::reference_monomial_integral(type, a.p[0] + b.p[0],
                                                                a.p[1] + b.p[1], a.p[2] + b.p[2]);
        }
    return energy * std::abs(det);
}

/// u^T K u for the single cell's matrix.
double quadratic_form(const std::vector<double>& ke, const std::vector<double>& u)
{
    const std::size_t n = u.size();
    double s = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) s += u[i] * ke[i * n + j] * u[j];
    return s;
}

}  // namespace

TEST(HighOrderElements, P2ReferenceTriangle)
{
    const Mesh m = test::lagrange_cell(ElementType::triangle, 2, [](const double* xi) {
        return test::to_unit_cell(ElementType::triangle, xi);
    });
    // Gmsh's node order: vertices (0,0), (1,0), (0,1), then the midpoints of edges 01, 12, 20.
    const double mid[3][2] = {{0.5, 0.0}, {0.5, 0.5}, {0.0, 0.5}};
    for (int k = 0; k < 3; ++k) {
        ASSERT_DOUBLE_EQ(m.coordinates[3 * (3 + k)], mid[k][0]);
        ASSERT_DOUBLE_EQ(m.coordinates[3 * (3 + k) + 1], mid[k][1]);
    }
    const auto r = cpu_element(m, "1", "1");
    expect_matrix(r.ke,
                  {6,  1,  1, -4, 0,  -4,  //
                   1,  3,  0, -4, 0,  0,   //
                   1,  0,  3, 0,  0,  -4,  //
                   -4, -4, 0, 16, -8, 0,   //
                   0,  0,  0, -8, 16, -8,  //
                   -4, 0,  -4, 0, -8, 16},
                  1.0 / 6.0, "P2 stiffness");
    // int phi_vertex = 0, int phi_edge = area / 3.
    expect_matrix(r.fe, {0, 0, 0, 1, 1, 1}, 1.0 / 6.0, "P2 load");
}

TEST(HighOrderElements, Q2UnitSquareIsTheTensorProductOf1dMatrices)
{
    // 1D quadratic element on [0,1] with nodes 0, 1, 1/2 (Gmsh's order: ends, then middle):
    // stiffness K1 = [7 1 -8; 1 7 -8; -8 -8 16] / 3, mass M1 = [4 -1 2; -1 4 2; 2 2 16] / 30,
    // load m1 = [1 1 4] / 6. On [0,1]^2: K = K1 (x) M1 + M1 (x) K1, f = m1 (x) m1.
    const double K1[3][3] = {{7 / 3.0, 1 / 3.0, -8 / 3.0}, {1 / 3.0, 7 / 3.0, -8 / 3.0},
                             {-8 / 3.0, -8 / 3.0, 16 / 3.0}};
    const double M1[3][3] = {{4 / 30.0, -1 / 30.0, 2 / 30.0}, {-1 / 30.0, 4 / 30.0, 2 / 30.0},
                             {2 / 30.0, 2 / 30.0, 16 / 30.0}};
    const double m1[3] = {1 / 6.0, 1 / 6.0, 4 / 6.0};
    const Mesh m = test::lagrange_cell(ElementType::quadrilateral, 2, [](const double* xi) {
        return test::to_unit_cell(ElementType::quadrilateral, xi);
    });
    auto index_1d = [](double x) { return x == 0.0 ? 0 : x == 1.0 ? 1 : 2; };
    std::vector<double> expect_k(81), expect_f(9);
    for (int a = 0; a < 9; ++a) {
        const int ax = index_1d(m.coordinates[3 * a]), ay = index_1d(m.coordinates[3 * a + 1]);
        expect_f[a] = m1[ax] * m1[ay];
        for (int b = 0; b < 9; ++b) {
            const int bx = index_1d(m.coordinates[3 * b]), by = index_1d(m.coordinates[3 * b + 1]);
            expect_k[a * 9 + b] = K1[ax][bx] * M1[ay][by] + M1[ax][bx] * K1[ay][by];
        }
    }
    const auto r = cpu_element(m, "1", "1");
    expect_matrix(r.ke, expect_k, 1.0, "Q2 stiffness");
    expect_matrix(r.fe, expect_f, 1.0, "Q2 load");
}

TEST(HighOrderElements, SymmetricWithZeroRowSumsOnCurvedCells)
{
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const int dim = element_dimension(type);
            const Mesh m = test::lagrange_cell(type, order,
                                               [&](const double* xi) { return curved(dim, xi); });
            const auto r = cpu_element(m, "1 + x*x + 0.5*y", "1");
            const std::size_t n = m.nodes_per_cell;
            double scale = 0;
            for (double v : r.ke) scale = std::max(scale, std::abs(v));
            for (std::size_t i = 0; i < n; ++i) {
                double row = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    row += r.ke[i * n + j];
                    EXPECT_NEAR(r.ke[i * n + j], r.ke[j * n + i], 1e-13 * scale);
                }
                EXPECT_NEAR(row, 0.0, 1e-12 * scale)
                    << element_type_name(type) << " order " << order << " row " << i;
                EXPECT_GT(r.ke[i * n + i], 0.0);
            }
        }
}

TEST(HighOrderElements, EnergyOfDegreeKPolynomialIsExactOnStraightCells)
{
    // u^T K u = int |grad u|^2 for u of degree k on an affine cell (the quadrature is exact).
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const int dim = element_dimension(type);
            const Mesh m = test::lagrange_cell(type, order,
                                               [&](const double* xi) { return affine(dim, xi); });
            const auto p = degree_k_polynomial(dim, order);
            const auto xi = lagrange_reference_nodes(type, order);
            std::vector<double> u(m.nodes_per_cell);
            for (int i = 0; i < m.nodes_per_cell; ++i) u[i] = evaluate(p, &xi[i * dim], dim);
            const auto r = cpu_element(m, "1", "1");
            const double exact = exact_affine_energy(type, p);
            EXPECT_NEAR(quadratic_form(r.ke, u), exact, 1e-12 * exact)
                << element_type_name(type) << " order " << order;
        }
}

TEST(HighOrderElements, EnergyOfLinearFunctionOnCurvedCellsIsItsGradientSquaredTimesVolume)
{
    // u = c.x + d lies in the isoparametric space, so grad u_h = c at every quadrature point:
    // u^T K u = |c|^2 sum_q w |det J| = |c|^2 sum_i f_i for f = 1.
    const double c[3] = {0.7, -1.3, 0.4};
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const int dim = element_dimension(type);
            const Mesh m = test::lagrange_cell(type, order,
                                               [&](const double* xi) { return curved(dim, xi); });
            std::vector<double> u(m.nodes_per_cell);
            double c2 = 0;
            for (int d = 0; d < dim; ++d) c2 += c[d] * c[d];
            for (int i = 0; i < m.nodes_per_cell; ++i) {
                u[i] = 0.25;
                for (int d = 0; d < dim; ++d) u[i] += c[d] * m.coordinates[3 * i + d];
            }
            const auto r = cpu_element(m, "1", "1");
            double volume = 0;
            for (double v : r.fe) volume += v;
            EXPECT_NEAR(quadratic_form(r.ke, u), c2 * volume, 1e-12 * c2 * volume)
                << element_type_name(type) << " order " << order;
        }
}

TEST(HighOrderElements, AssembledPatchTestLinearFunctionsGiveZeroAtInteriorNodes)
{
    // A single K_e times a linear function gives the boundary flux int_de phi_i c.n, not zero;
    // assembled over a mesh, the interior rows vanish (the patch test). Boxes are mapped by
    // a global multilinear map so that their cells are not parallelograms.
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const int dim = element_dimension(type);
            Mesh mesh = test::unit_box_mesh(type, order, dim == 2 ? 0.3 : 0.5);
            if (type == ElementType::quadrilateral || type == ElementType::hexahedron)
                test::map_multilinearly(mesh);
            ProblemSpec p;
            const auto system = assemble_poisson<double>(Executor::create_cpu(), mesh, p);
            std::vector<double> u(mesh.num_nodes());
            for (index_type i = 0; i < mesh.num_nodes(); ++i)
                u[i] = 1 + 0.6 * mesh.coordinates[3 * i] - 1.1 * mesh.coordinates[3 * i + 1] +
                       0.8 * mesh.coordinates[3 * i + 2];
            const test::PatchResidual r = test::interior_residual(mesh, system.matrix, u);
            EXPECT_GT(r.interior, 0) << element_type_name(type) << " order " << order;
            EXPECT_LT(r.worst, 1e-12 * r.scale) << element_type_name(type) << " order " << order;
        }
}

TEST(HighOrderElements, IsoparametricCellsFollowTheCurvedBoundary)
{
    // The unit disk's area as the sum of the element loads for f = 1: Gmsh puts the boundary
    // cells' high-order nodes on the circle and the element map uses them all, so the area
    // error falls with the order (measured at h = 0.5: 8.0e-2, 1.5e-4, 2.3e-5, 5.9e-8).
    double previous = 1.0;
    for (int order = 1; order <= 4; ++order) {
        MeshSpec spec;
        spec.shape = "disk";
        spec.size = 0.5;
        spec.degree = order;
        const Mesh mesh = load_mesh(spec);
        const auto r = cpu_element(mesh, "1", "1");
        double area = 0;
        for (double v : r.fe) area += v;
        const double error = std::abs(area - std::numbers::pi);
        EXPECT_LT(error, previous / 5) << "order " << order;
        previous = error;
    }
    EXPECT_LT(previous, 1e-6);
}
