// Manufactured solutions: the L2 error of P1/Q1 falls as h^2 (and the H1 error as h).
#include <gtest/gtest.h>

#include <cmath>

#include "assembly/error_norms.hpp"
#include "assembly/poisson_assembly.hpp"
#include "linalg/format_build.hpp"
#include "mesh/mesh_source.hpp"
#include "assembly/simple_meshes.hpp"
#include "solver/cg.hpp"

using namespace gpufem;

namespace {

ErrorNorms solve_cpu(const Mesh& mesh, const ProblemSpec& problem)
{
    const auto exec = Executor::create_cpu();
    auto system = assemble_poisson<double>(exec, mesh, problem);
    const auto op = build_format<double>("csr", std::move(system.matrix), {}).op;
    Array<double> x = std::move(system.initial_guess);
    const SolveResult r = cg(*op, system.rhs, x, {1e-12, 20000});
    EXPECT_TRUE(r.converged()) << r.message;
    const auto u = x.to_host();
    return compute_errors(mesh, u, Expression(problem.exact));
}

void expect_rates(ElementType type, const std::vector<int>& divisions, const ProblemSpec& problem,
                  double jitter)
{
    std::vector<ErrorNorms> errors;
    for (int n : divisions) {
        Mesh mesh = test::grid_mesh(type, n, jitter, 7);
        test::add_box_boundaries(mesh);
        errors.push_back(solve_cpu(mesh, problem));
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
        const double ratio = double(divisions[k]) / divisions[k - 1];
        const double l2_rate = std::log(errors[k - 1].l2 / errors[k].l2) / std::log(ratio);
        const double h1_rate = std::log(errors[k - 1].h1_semi / errors[k].h1_semi) / std::log(ratio);
        EXPECT_NEAR(l2_rate, 2.0, 0.2) << element_type_name(type) << " n=" << divisions[k]
                                       << " L2 " << errors[k - 1].l2 << " -> " << errors[k].l2;
        EXPECT_NEAR(h1_rate, 1.0, 0.2) << element_type_name(type) << " n=" << divisions[k];
    }
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

}  // namespace

TEST(Convergence, P1Triangles) { expect_rates(ElementType::triangle, {8, 16, 32}, sine_2d(), 0.0); }
TEST(Convergence, Q1Quadrilaterals) { expect_rates(ElementType::quadrilateral, {8, 16, 32}, sine_2d(), 0.0); }
TEST(Convergence, P1TrianglesVariableKappaNeumann)
{
    expect_rates(ElementType::triangle, {8, 16, 32}, mixed_2d(), 0.0);
}
TEST(Convergence, Q1DistortedQuadrilateralsVariableKappaNeumann)
{
    expect_rates(ElementType::quadrilateral, {8, 16, 32}, mixed_2d(), 0.1);
}
TEST(Convergence, P1Tetrahedra) { expect_rates(ElementType::tetrahedron, {4, 8, 16}, sine_3d(), 0.0); }
TEST(Convergence, Q1Hexahedra) { expect_rates(ElementType::hexahedron, {4, 8, 16}, sine_3d(), 0.0); }

namespace {

/// Rates on Gmsh's own unstructured meshes: refined uniformly (nested), or, where uniform
/// refinement degrades the cells (Gmsh splits a tetrahedron into 8 along an arbitrary inner
/// diagonal), meshed anew with the size halved.
void expect_rates_on_shape(const std::string& shape, const std::string& elements, double size,
                           const ProblemSpec& problem, bool remesh)
{
    std::vector<ErrorNorms> errors;
    for (int level = 0; level < 3; ++level) {
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::shape;
        spec.shape = shape;
        spec.elements = elements;
        spec.size = remesh ? size / (1 << level) : size;
        spec.refine = remesh ? 0 : level;
        errors.push_back(solve_cpu(load_mesh(spec), problem));
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
        EXPECT_NEAR(std::log2(errors[k - 1].l2 / errors[k].l2), 2.0, 0.2)
            << shape << " " << elements << " level " << k;
        EXPECT_NEAR(std::log2(errors[k - 1].h1_semi / errors[k].h1_semi), 1.0, 0.2)
            << shape << " " << elements << " level " << k;
    }
}

}  // namespace

TEST(Convergence, P1UnstructuredGmshTriangles)
{
    expect_rates_on_shape("unit_square", "triangle", 0.1, mixed_2d(), false);
}

TEST(Convergence, P1UnstructuredGmshTetrahedra)
{
    expect_rates_on_shape("unit_cube", "tetrahedron", 0.15, sine_3d(), true);
}
