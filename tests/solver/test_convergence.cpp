// Manufactured solutions: Lagrange elements of order k converge in L2 as h^(k+1) and in the
// H1 seminorm as h^k (k = 1..4 on triangles and quadrilaterals, 1..3 on tetrahedra and
// hexahedra, on Gmsh meshes of that order; with GLL nodes quadrilaterals of order 5..8 and
// hexahedra of order 5..6), and reproduce polynomials of degree k exactly (boxes to order 8).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "assembly/error_norms.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/simple_meshes.hpp"
#include "linalg/format_build.hpp"
#include "mesh/mesh_source.hpp"
#include "solver/krylov/cg.hpp"
#include "tests/assembly/high_order_meshes.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"

using namespace gpufem;

namespace {

/// CG's relative residual target: far below every discretisation error measured here.
constexpr double solver_tolerance = 1e-13;

ErrorNorms solve_cpu(const Mesh& mesh, const ProblemSpec& problem)
{
    const auto exec = Executor::create_cpu();
    auto system = assemble_poisson<double>(exec, mesh, problem);
    const auto op = build_format<double>("csr", std::move(system.matrix), {}).op;
    Array<double> x = std::move(system.initial_guess);
    const SolveResult r = cg(*op, system.rhs, x, {solver_tolerance, 50000});
    EXPECT_TRUE(r.converged()) << r.message;
    const auto u = x.to_host();
    return compute_errors(mesh, u, Expression(problem.exact));
}

/// Convergence rate between two meshes of sizes h0 > h1.
double rate(double e0, double e1, double h0, double h1)
{
    return std::log(e0 / e1) / std::log(h0 / h1);
}

ProblemSpec sine_2d()
{
    ProblemSpec p;
    p.f = "2*pi^2*sin(pi*x)*sin(pi*y)";
    p.exact = "sin(pi*x)*sin(pi*y)";
    p.dirichlet = {{"boundary", "0"}};
    return p;
}

/// Variable kappa, non-zero Dirichlet data and a Neumann flux on the top side.
ProblemSpec mixed_2d()
{
    ProblemSpec p;
    p.kappa = "1 + x*y";
    p.exact = "cos(pi*x)*exp(y)";
    p.f = "-((1 + x*y)*(1 - pi^2)*cos(pi*x)*exp(y) - y*pi*sin(pi*x)*exp(y) + x*cos(pi*x)*exp(y))";
    p.dirichlet = {{"left", "cos(pi*x)*exp(y)"}, {"right", "cos(pi*x)*exp(y)"},
                   {"bottom", "cos(pi*x)*exp(y)"}};
    p.neumann = {{"top", "(1 + x*y)*cos(pi*x)*exp(y)"}};
    return p;
}

ProblemSpec sine_3d()
{
    ProblemSpec p;
    p.f = "3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)";
    p.exact = "sin(pi*x)*sin(pi*y)*sin(pi*z)";
    p.dirichlet = {{"boundary", "0"}};
    return p;
}

/// Variable kappa, Dirichlet data on five sides and a Neumann flux on the top (z = 1).
ProblemSpec mixed_3d()
{
    ProblemSpec p;
    p.kappa = "1 + x*y*z";
    p.exact = "cos(pi*x)*exp(y)*cos(z)";
    p.f = "(pi^2*x*y*z*cos(z)*cos(pi*x) + x*y*sin(z)*cos(pi*x) - x*z*cos(z)*cos(pi*x) + "
          "pi*y*z*sin(pi*x)*cos(z) + pi^2*cos(z)*cos(pi*x))*exp(y)";
    for (const char* side : {"left", "right", "front", "back", "bottom"})
        p.dirichlet.push_back({side, p.exact});
    p.neumann = {{"top", "-(1 + x*y*z)*exp(y)*sin(z)*cos(pi*x)"}};
    return p;
}

/// Solves on `levels` meshes of sizes h0, h0/2, h0/4 and expects L2 rate k+1 and H1 rate k
/// (+- 0.25). Structured boxes: n = 1/h cells per side. Triangles: uniformly refined (nested).
/// Tetrahedra: meshed anew with the size halved (Gmsh's refinement of a tetrahedron splits it
/// along an arbitrary inner diagonal and degrades the cells).
void expect_order_k_rates(ElementType type, int order, double h0, const ProblemSpec& problem, int levels = 3)
{
    std::vector<ErrorNorms> errors;
    std::vector<double> h;
    for (int level = 0; level < levels; ++level) {
        const bool refine = type == ElementType::triangle;
        const Mesh mesh =
            test::unit_box_mesh(type, order, refine ? h0 : h0 / (1 << level), refine ? level : 0);
        errors.push_back(solve_cpu(mesh, problem));
        h.push_back(h0 / (1 << level));
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
        const double l2 = rate(errors[k - 1].l2, errors[k].l2, h[k - 1], h[k]);
        const double h1 = rate(errors[k - 1].h1_semi, errors[k].h1_semi, h[k - 1], h[k]);
        std::printf("  %-13s order %d h %.4f: L2 %.3e (rate %.2f)  H1 %.3e (rate %.2f)\n",
                    element_type_name(type), order, h[k], errors[k].l2, l2, errors[k].h1_semi, h1);
        EXPECT_NEAR(l2, order + 1, 0.25) << element_type_name(type) << " order " << order
                                         << " level " << k << " L2 " << errors[k - 1].l2
                                         << " -> " << errors[k].l2;
        EXPECT_NEAR(h1, order, 0.25) << element_type_name(type) << " order " << order
                                     << " level " << k << " H1 " << errors[k - 1].h1_semi
                                     << " -> " << errors[k].h1_semi;
    }
}

}  // namespace

// Degree 1 on hand-made structured grids (jittered: distorted quadrilaterals).

namespace {

void expect_p1_rates(ElementType type, const std::vector<int>& divisions,
                     const ProblemSpec& problem, double jitter)
{
    std::vector<ErrorNorms> errors;
    for (int n : divisions) {
        Mesh mesh = test::grid_mesh(type, n, jitter, 7);
        test::add_box_boundaries(mesh);
        errors.push_back(solve_cpu(mesh, problem));
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
        const double l2 = rate(errors[k - 1].l2, errors[k].l2, divisions[k], divisions[k - 1]);
        const double h1 =
            rate(errors[k - 1].h1_semi, errors[k].h1_semi, divisions[k], divisions[k - 1]);
        EXPECT_NEAR(l2, 2.0, 0.2) << element_type_name(type) << " n=" << divisions[k] << " L2 "
                                  << errors[k - 1].l2 << " -> " << errors[k].l2;
        EXPECT_NEAR(h1, 1.0, 0.2) << element_type_name(type) << " n=" << divisions[k];
    }
}

}  // namespace

TEST(Convergence, P1Triangles)
{
    expect_p1_rates(ElementType::triangle, {8, 16, 32}, sine_2d(), 0.0);
}
TEST(Convergence, Q1Quadrilaterals)
{
    expect_p1_rates(ElementType::quadrilateral, {8, 16, 32}, sine_2d(), 0.0);
}
TEST(Convergence, P1TrianglesVariableKappaNeumann)
{
    expect_p1_rates(ElementType::triangle, {8, 16, 32}, mixed_2d(), 0.0);
}
TEST(Convergence, Q1DistortedQuadrilateralsVariableKappaNeumann)
{
    expect_p1_rates(ElementType::quadrilateral, {8, 16, 32}, mixed_2d(), 0.1);
}
TEST(Convergence, P1Tetrahedra)
{
    expect_p1_rates(ElementType::tetrahedron, {4, 8, 16}, sine_3d(), 0.0);
}
TEST(Convergence, Q1Hexahedra)
{
    expect_p1_rates(ElementType::hexahedron, {4, 8, 16}, sine_3d(), 0.0);
}

// Orders 1-4 on Gmsh meshes of that order: variable kappa, Dirichlet and Neumann data. The
// coarsest sizes shrink with the order so that the finest errors stay far above the solver's
// tolerance and the suite stays fast.

TEST(Convergence, OrderKTriangles)
{
    const double h0[] = {0.2, 0.25, 0.4, 0.5};
    for (int k = 1; k <= 4; ++k)
        expect_order_k_rates(ElementType::triangle, k, h0[k - 1], mixed_2d());
}

TEST(Convergence, OrderKQuadrilaterals)
{
    const double h0[] = {1.0 / 8, 1.0 / 4, 1.0 / 4, 1.0 / 2};
    for (int k = 1; k <= 4; ++k)
        expect_order_k_rates(ElementType::quadrilateral, k, h0[k - 1], mixed_2d());
}

TEST(Convergence, OrderKTetrahedra)
{
    // From h = 0.25 (6 Kuhn tetrahedra per cube of the generated grid; Gmsh's unstructured
    // tetrahedra, used before, gave erratic rates between h = 0.5 and 0.25).
    const double h0[] = {0.25, 0.25, 0.25};
    for (int k = 1; k <= 3; ++k)
        expect_order_k_rates(ElementType::tetrahedron, k, h0[k - 1], mixed_3d());
}

TEST(Convergence, OrderKHexahedra)
{
    const double h0[] = {1.0 / 4, 1.0 / 2, 1.0 / 2};
    for (int k = 1; k <= 3; ++k)
        expect_order_k_rates(ElementType::hexahedron, k, h0[k - 1], mixed_3d());
}

// Orders 5-8 with GLL nodes, on the generated grids (quadrilaterals to order 8; hexahedra of
// orders 5 and 6 on two sizes, whose element matrices take seconds on the CPU).

TEST(Convergence, OrderKQuadrilateralsWithGllNodes)
{
    // Orders 7 and 8 between h = 1/2 and 1/4 only: at 1/8 their L2 errors (1e-14) reach rounding.
    for (int k = 5; k <= 8; ++k)
        expect_order_k_rates(ElementType::quadrilateral, k, 1.0 / 2, mixed_2d(), k <= 6 ? 3 : 2);
}

TEST(Convergence, OrderKHexahedraWithGllNodes)
{
    for (int k = 5; k <= 6; ++k) expect_order_k_rates(ElementType::hexahedron, k, 1.0 / 2, mixed_3d(), 2);
}

namespace {

/// c x^a y^b z^e.
struct Monomial {
    double c;
    int p[3];
};

std::string to_expression(const std::vector<Monomial>& terms)
{
    std::string text;
    const char* names[3] = {"x", "y", "z"};
    for (const Monomial& m : terms) {
        text += (text.empty() ? "" : " + ") + std::string("(") + std::to_string(m.c) + ")";
        for (int c = 0; c < 3; ++c)
            if (m.p[c] > 0) text += std::string("*") + names[c] + "^" + std::to_string(m.p[c]);
    }
    return text.empty() ? "0" : text;
}

/// -laplace(u) of a polynomial given as monomials.
std::vector<Monomial> minus_laplacian(const std::vector<Monomial>& u)
{
    std::vector<Monomial> out;
    for (const Monomial& m : u)
        for (int c = 0; c < 3; ++c)
            if (m.p[c] >= 2) {
                Monomial d = m;
                d.c = -m.c * m.p[c] * (m.p[c] - 1);
                d.p[c] -= 2;
                out.push_back(d);
            }
    return out;
}

/// Solves -laplace u = f with u = a polynomial of total degree k (all of x^k, x y^(k-1),
/// y^k, ... ) as Dirichlet data on the whole boundary; returns the errors.
ErrorNorms solve_polynomial(const Mesh& mesh, int k)
{
    std::vector<Monomial> u = {{1.0, {k, 0, 0}}, {-2.0, {1, k - 1, 0}}, {0.5, {0, k, 0}},
                               {0.75, {1, 0, 0}}, {0.3, {0, 0, 0}}};
    if (mesh.dim == 3)
        u.insert(u.end(), {{1.5, {0, 1, k - 1}}, {-1.0, {0, 0, k}}, {0.5, {k - 1, 0, 1}}});
    ProblemSpec p;
    p.exact = to_expression(u);
    p.f = to_expression(minus_laplacian(u));
    p.dirichlet = {{"boundary", p.exact}};
    return solve_cpu(mesh, p);
}

}  // namespace

TEST(Convergence, DegreeKPolynomialsAreReproducedExactly)
{
    // Unstructured simplices (affine cells); boxes through a global multilinear map, so their
    // cells are general quadrilaterals / hexahedra with multilinear maps, under which Q_k
    // still contains every polynomial of degree k.
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const bool plane = element_dimension(type) == 2;
        const bool box = type == ElementType::quadrilateral || type == ElementType::hexahedron;
        for (int k = 1; k <= (box ? (plane ? 8 : 6) : plane ? 4 : 3); ++k) {
            Mesh mesh = test::unit_box_mesh(type, k, plane ? 0.3 : 0.5);
            if (type == ElementType::quadrilateral || type == ElementType::hexahedron)
                test::map_multilinearly(mesh);
            const ErrorNorms e = solve_polynomial(mesh, k);
            EXPECT_LT(e.max_nodal, 1e-10) << element_type_name(type) << " order " << k;
            EXPECT_LT(e.l2, 1e-10 * e.l2_exact) << element_type_name(type) << " order " << k;
            EXPECT_LT(e.h1_semi, 1e-8 * e.l2_exact) << element_type_name(type) << " order " << k;
        }
    }
}

// gpufem's own node numbering and refinement of Gmsh meshes (mesh/mesh_refinement.hpp).

namespace {

/// The degree-k solution at the nodes of `mesh`, CG run to a relative residual of 1e-15 (near
/// rounding, so that two numberings of one system give the same solution to about 1e-13).
std::vector<double> solve_nodes(const Mesh& mesh, const ProblemSpec& problem)
{
    const auto exec = Executor::create_cpu();
    auto system = assemble_poisson<double>(exec, mesh, problem);
    const auto op = build_format<double>("csr", std::move(system.matrix), {}).op;
    Array<double> x = std::move(system.initial_guess);
    const SolveResult r = cg(*op, system.rhs, x, {1e-15, 50000});
    EXPECT_TRUE(r.converged()) << r.message;
    return x.to_host();
}

/// Variable kappa and non-zero Dirichlet data on the whole boundary ('boundary').
ProblemSpec dirichlet_problem(int dim)
{
    ProblemSpec p = dim == 2 ? mixed_2d() : mixed_3d();
    p.dirichlet = {{"boundary", p.exact}};
    p.neumann.clear();
    return p;
}

/// The nodes' positions and values of u, ordered by position (x, then y, then z, on a grid of
/// 1e-7, far below the node spacing and far above rounding, shifted so that no dyadic
/// coordinate lies halfway between two grid lines).
std::vector<std::array<double, 4>> by_position(const Mesh& mesh, const std::vector<double>& u)
{
    std::vector<index_type> order(static_cast<std::size_t>(mesh.num_nodes()));
    for (index_type n = 0; n < mesh.num_nodes(); ++n) order[n] = n;
    const auto at = [&](index_type n) {
        const double* x = &mesh.coordinates[3 * static_cast<std::size_t>(n)];
        const auto grid = [](double v) { return std::round(v * 1e7 + 0.3141592653589793); };
        return std::array<double, 3>{grid(x[0]), grid(x[1]), grid(x[2])};
    };
    std::sort(order.begin(), order.end(), [&](index_type a, index_type b) { return at(a) < at(b); });
    std::vector<std::array<double, 4>> sorted;
    for (index_type n : order) {
        const double* x = &mesh.coordinates[3 * static_cast<std::size_t>(n)];
        sorted.push_back({x[0], x[1], x[2], u[n]});
    }
    return sorted;
}

}  // namespace

TEST(OwnNumbering, GivesTheSolutionOfGmshsHighOrderNodes)
{
    // The same Gmsh mesh, refined once (by Gmsh or by gpufem: the same cells, except for
    // tetrahedra, whose inner diagonal Gmsh chooses otherwise: those are not refined), with
    // Gmsh's degree-k nodes or gpufem's: the same solution at the same points.
    test::TempFolder folder;
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const int dim = element_dimension(type);
        const auto geo = test::write_box_geo(folder, type);
        for (int k = 1; k <= 4; ++k) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " degree " + std::to_string(k));
            const int refine = type == ElementType::tetrahedron ? 0 : 1;
            MeshSpec spec = test::box_geo_spec(geo, dim == 2 ? 0.3 : (type == ElementType::hexahedron ? 1.0 : 0.5), k, refine);
            const Mesh ours = load_mesh(spec);
            spec.gmsh_nodes = true;
            const Mesh gmsh = load_mesh(spec);
            ASSERT_EQ(ours.num_nodes(), gmsh.num_nodes());
            ASSERT_EQ(ours.num_cells(), gmsh.num_cells());
            // Polynomial data that every quadrature rule here integrates exactly: children
            // may list their vertices in another order than Gmsh's, and the rules on
            // simplices are not symmetric, so with other data the two systems differ by the
            // quadrature error (1e-8 relative at P2 on the triangles).
            ProblemSpec problem;
            problem.f = "1 + x^2 - 2*y";
            problem.dirichlet = {{"boundary", "cos(pi*x)*exp(y) + z"}};
            const auto a = by_position(ours, solve_nodes(ours, problem));
            const auto b = by_position(gmsh, solve_nodes(gmsh, problem));
            double scale = 0, diff = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                for (int axis = 0; axis < 3; ++axis) ASSERT_NEAR(a[i][axis], b[i][axis], 1e-12) << i;
                scale = std::max(scale, std::abs(b[i][3]));
                diff = std::max(diff, std::abs(a[i][3] - b[i][3]));
            }
            std::printf("  %-13s degree %d: %d nodes, max |u_gpufem - u_gmsh| = %.2e (max |u| %.2f)\n",
                        element_type_name(type), k, ours.num_nodes(), diff, scale);
            EXPECT_LE(diff, 1e-11 * scale) << ours.num_nodes() << " nodes";
        }
    }
}

TEST(Convergence, OrderKOnGmshMeshesRefinedByGpufem)
{
    // Unstructured Gmsh meshes of the square and cube (all four cell types, degrees 1-4),
    // refined 0, 1, 2 times by gpufem (3D degrees above 1: 0 and 1 times, to stay fast).
    test::TempFolder folder;
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const int dim = element_dimension(type);
        const auto geo = test::write_box_geo(folder, type);
        for (int k = 1; k <= 4; ++k) {
            const int levels = dim == 3 && k > 1 ? 2 : 3;
            const bool big = type == ElementType::hexahedron && k == 4;  // 64 nodes a cell
            const double h0 = dim == 2 || k == 1 ? 0.4 : (big ? 1.0 : 0.5);
            std::vector<ErrorNorms> errors;
            for (int r = 0; r < levels; ++r)
                errors.push_back(solve_cpu(load_mesh(test::box_geo_spec(geo, h0, k, r)), dirichlet_problem(dim)));
            for (std::size_t r = 1; r < errors.size(); ++r) {
                const double l2 = rate(errors[r - 1].l2, errors[r].l2, 2.0, 1.0);
                const double h1 = rate(errors[r - 1].h1_semi, errors[r].h1_semi, 2.0, 1.0);
                std::printf("  Gmsh %-13s order %d refine %zu: L2 %.3e (rate %.2f)  H1 %.3e (rate %.2f)\n",
                            element_type_name(type), k, r, errors[r].l2, l2, errors[r].h1_semi, h1);
                EXPECT_NEAR(l2, k + 1, 0.3) << element_type_name(type) << " order " << k << " refine " << r;
                EXPECT_NEAR(h1, k, 0.3) << element_type_name(type) << " order " << k << " refine " << r;
            }
        }
    }
}
