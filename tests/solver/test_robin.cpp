// Robin conditions -kappa du/dn = h (u - u_inf) through the pipeline on the CPU backend:
// manufactured solutions at the optimal rates (finite elements of degree 1-3 on triangles,
// quadrilaterals, tetrahedra, hexahedra, prisms and a mixed mesh; finite volumes), the term in
// every operator (csr, lma's storages, pmg's coarse levels, a mixed mesh's lma), and the
// errors for bad conditions.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "assembly/lma_system.hpp"
#include "case_runs.hpp"
#include "fv_test_support.hpp"
#include "random_values.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "tests/mixed_mesh_geometries.hpp"

using namespace gpufem;
using test::case_error_of;
using test::errors_at;
using test::expect_rates;
using test::expect_says;
using test::run_fv_case;
using test::solution_of;

namespace {

/// u = cos(pi x) e^y, kappa = 1 + x y on the unit square: Robin on top (h = 2 + x) and right
/// (h = 3), and on left (h = 1) and bottom (h = 5) too when robin_everywhere, else Dirichlet
/// there. u_inf = u + kappa / h du/dn makes u the solution.
std::string problem_2d(bool robin_everywhere)
{
    const std::string u = "cos(pi*x)*exp(y)";
    std::string text = "problem:\n  kappa: \"1 + x*y\"\n"
                       "  f: \"-((1 + x*y)*(1 - pi^2)*cos(pi*x)*exp(y) - y*pi*sin(pi*x)*exp(y) + x*cos(pi*x)*exp(y))\"\n"
                       "  exact: \"" + u + "\"\n  robin:\n"
                       "    top: {h: \"2 + x\", u_inf: \"" + u + "*(1 + (1 + x*y)/(2 + x))\"}\n"
                       "    right: {h: 3, u_inf: \"" + u + " - (1 + x*y)*pi*sin(pi*x)*exp(y)/3\"}\n";
    if (robin_everywhere)
        return text + "    left: {h: 1, u_inf: \"" + u + " + (1 + x*y)*pi*sin(pi*x)*exp(y)\"}\n"
                      "    bottom: {h: 5, u_inf: \"" + u + "*(1 - (1 + x*y)/5)\"}\n";
    return text + "  dirichlet: {left: \"" + u + "\", bottom: \"" + u + "\"}\n";
}

/// u = cos(pi x) e^y cos(z), kappa = 1 + x y z on the unit cube: Robin on top (h = 2 + x),
/// back (h = 4) and right (h = 1), Dirichlet on the other sides.
std::string problem_3d()
{
    const std::string u = "cos(pi*x)*exp(y)*cos(z)";
    return "problem:\n  kappa: \"1 + x*y*z\"\n"
           "  f: \"(pi^2*x*y*z*cos(z)*cos(pi*x) + x*y*sin(z)*cos(pi*x) - x*z*cos(z)*cos(pi*x) + "
           "pi*y*z*sin(pi*x)*cos(z) + pi^2*cos(z)*cos(pi*x))*exp(y)\"\n"
           "  exact: \"" + u + "\"\n  robin:\n"
           "    top: {h: \"2 + x\", u_inf: \"cos(pi*x)*exp(y)*(cos(z) - (1 + x*y*z)*sin(z)/(2 + x))\"}\n"
           "    back: {h: 4, u_inf: \"" + u + "*(1 + (1 + x*y*z)/4)\"}\n"
           "    right: {h: 1, u_inf: \"" + u + " - (1 + x*y*z)*pi*sin(pi*x)*exp(y)*cos(z)\"}\n"
           "  dirichlet: {left: \"" + u + "\", front: \"" + u + "\", bottom: \"" + u + "\"}\n";
}

/// A generated shape's case at mesh.size SIZE and the given degree.
std::string shape_case(const std::string& shape, const std::string& elements, int degree, const std::string& problem)
{
    return fmt::format("mesh: {{shape: {}, elements: {}, size: SIZE}}\ndegree: {}\n{}solver: {{tolerance: 1e-12}}\n",
                       shape, elements, degree, problem);
}

/// Three sizes halving from h0.
std::vector<std::string> halvings(double h0)
{
    return {fmt::format("{}", h0), fmt::format("{}", h0 / 2), fmt::format("{}", h0 / 4)};
}

/// Degrees 1-3 on a generated shape, each from its coarsest size h0[k - 1].
void expect_shape_rates(const std::string& shape, const std::string& elements, const double (&h0)[3])
{
    const std::string problem = shape == "unit_square" ? problem_2d(false) : problem_3d();
    for (int k = 1; k <= 3; ++k)
        expect_rates(errors_at(shape_case(shape, elements, k, problem), "SIZE", halvings(h0[k - 1])), k,
                     fmt::format("{} degree {}", elements, k));
}

}  // namespace

TEST(Robin, FiniteElementRatesOnTriangles)
{
    const double h0[] = {0.1, 0.2, 0.25};
    expect_shape_rates("unit_square", "triangle", h0);
}

TEST(Robin, FiniteElementRatesOnQuadrilaterals)
{
    const double h0[] = {0.1, 0.2, 0.25};
    expect_shape_rates("unit_square", "quadrilateral", h0);
}

TEST(Robin, FiniteElementRatesOnTetrahedra)
{
    const double h0[] = {0.25, 0.25, 0.5};
    expect_shape_rates("unit_cube", "tetrahedron", h0);
}

TEST(Robin, FiniteElementRatesOnHexahedra)
{
    const double h0[] = {0.25, 0.5, 0.5};
    expect_shape_rates("unit_cube", "hexahedron", h0);
}

TEST(Robin, FiniteElementRatesOnPrismsAndAMixedMesh)
{
    // Gmsh's prisms (an extruded triangulation) and its mesh of prisms, tetrahedra, pyramids
    // and hexahedra, refined by gpufem (mesh.refine R: nested, h halved). Meshed in gpufem's
    // worker (Gmsh's pyramids need a fresh Gmsh).
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"prisms.geo", test::cube_prisms(2)},
                                     {"four.geo", test::cube_four_types(6)}}) {
        const auto geo = folder.path() / name;
        std::ofstream(geo) << text;
        for (int k = 1; k <= 2; ++k) {
            const std::string yaml = fmt::format("mesh: {{geo: {}, refine: R}}\ndegree: {}\n{}solver: {{tolerance: 1e-12}}\n",
                                                 name, k, problem_3d());
            const std::vector<std::string> levels = name == "prisms.geo" ? std::vector<std::string>{"0", "1", "2"}
                                                                          : std::vector<std::string>{"0", "1"};
            expect_rates(errors_at(yaml, "R", levels, folder.path()), k, fmt::format("{} degree {}", name, k));
        }
    }
}

TEST(Robin, FiniteVolumeRates)
{
    // Structured quadrilaterals and hexahedra, and the generated triangles, whose faces are not
    // orthogonal to the lines between centroids (the correction at the Robin faces too).
    for (const auto& [shape, elements, h0] : {std::tuple<std::string, std::string, double>{"unit_square", "quadrilateral", 0.1},
                                             {"unit_square", "triangle", 0.1},
                                             {"unit_cube", "hexahedron", 0.25}}) {
        const std::string problem = shape == "unit_square" ? problem_2d(false) : problem_3d();
        const std::string yaml = shape_case(shape, elements, 1, problem) + "discretisation: fv\n";
        expect_rates(errors_at(yaml, "SIZE", halvings(h0)), 1, "finite volumes on " + elements, false);
    }
}

namespace {

/// The operators every Robin case below is solved with besides csr + amg.
const std::vector<std::string> operator_variants = {
    "format: lma\nsolver: {tolerance: 1e-12, preconditioner: pmg}\n",
    "format: lma\nformat_options: {lma: {scatter: colour, symmetric: true}}\nsolver: {tolerance: 1e-12, preconditioner: jacobi}\n",
    "format: lma\nformat_options: {lma: {symmetric: true}}\nsolver: {tolerance: 1e-12, preconditioner: pmg}\n",
    "format: csr\nsolver: {tolerance: 1e-12, preconditioner: pmg}\n"};

}  // namespace

TEST(Robin, EveryOperatorHoldsTheTerm)
{
    // Robin on the whole boundary (no Dirichlet: only the Robin term makes the operator
    // regular), Q3 on quadrilaterals and P2 on a grid of hexahedra (pmg's h-level); then a mixed
    // mesh (one lma operator per cell type). Each equals csr with amg to the solver's tolerance.
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    std::ofstream(folder.path() / "four.geo") << test::cube_four_types(6);
    for (const std::string& base :
         {"mesh: {shape: unit_square, elements: quadrilateral, size: 0.25}\ndegree: 3\n" + problem_2d(true),
          "mesh: {shape: unit_cube, elements: hexahedron, size: 0.25}\ndegree: 1\n" + problem_3d(),
          "mesh: {geo: four.geo}\ndegree: 2\n" + problem_3d()}) {
        const std::vector<double> reference =
            solution_of(base + "format: csr\nsolver: {tolerance: 1e-12, preconditioner: amg}\n", folder.path());
        const bool mixed = base.find("four.geo") != std::string::npos;
        for (const std::string& variant : operator_variants) {
            if (mixed && variant.find("pmg") != std::string::npos) continue;  // no pmg levels on mixed meshes
            EXPECT_LT(test::max_relative_difference(solution_of(base + variant, folder.path()), reference), 1e-8)
                << base.substr(0, base.find('\n')) << " with " << variant;
        }
    }
}

namespace {

/// max |A x - B x| / max |B x| for a random x.
double operator_difference(const Csr<double>& a, const Csr<double>& b, unsigned seed)
{
    const std::vector<double> x = test::random_vector<double>(static_cast<std::size_t>(a.cols), seed);
    const auto apply = [&](const Csr<double>& m) {
        const auto op = build_format<double>("csr", m.clone_to(test::cpu_executor()), FormatOptions{}).op;
        Array<double> y(test::cpu_executor(), static_cast<std::size_t>(m.rows));
        op->apply(Array<double>::from_host(test::cpu_executor(), x), y);
        return y.to_host();
    };
    return test::max_relative_difference(apply(a), apply(b));
}

}  // namespace

TEST(Robin, PmgCoarseOperatorsAreGalerkinProductsOfTheSystemWithTheTerm)
{
    // From the element matrices made for them (with a convection term: cell-major, the Robin
    // term added there) and from an lma operator's storage: R A P of the assembled matrix.
    const unsigned seed = test::random_seed();
    for (const bool convection : {false, true}) {
        CaseSpec spec = parse_case_text("mesh: {shape: unit_square, elements: quadrilateral, size: 0.25}\ndegree: 4\n" +
                                            problem_2d(false) + "backend: cpu\n",
                                        "robin.yaml", "");
        if (convection) spec.problem.convection = {1.0, -0.5};
        const CaseMesh mesh = load_case_mesh(spec, test::cpu_executor());
        const auto disc = make_discretisation<double>(spec, mesh);
        const LinearSystem<double> system = disc->assemble(test::cpu_executor());
        const std::vector<Csr<double>> chain = disc->pmg_interpolations(test::cpu_executor());
        std::vector<std::vector<Csr<double>>> candidates;
        candidates.push_back(disc->pmg_coarse_operators(test::cpu_executor()));
        if (!convection) {
            const LmaSystem<double> lma = assemble_lma_system<double>(test::cpu_executor(), mesh.mesh, spec.problem, LmaOptions{});
            candidates.push_back(disc->pmg_coarse_operators(test::cpu_executor(), lma.format.op.get()));
        }
        for (const std::vector<Csr<double>>& operators : candidates) {
            ASSERT_FALSE(operators.empty());
            Csr<double> finer = system.matrix.clone_to(test::cpu_executor());
            for (std::size_t l = 0; l < operators.size(); ++l) {
                Csr<double> rap = sparse_product(sparse_transpose(chain[l]), sparse_product(finer, chain[l]));
                EXPECT_LT(operator_difference(operators[l], rap, seed + static_cast<unsigned>(l)), 1e-12)
                    << "convection " << convection << " level " << l + 1;
                finer = std::move(rap);
            }
        }
    }
}

TEST(Robin, BadConditionsAreRefused)
{
    const std::string mesh = "mesh: {shape: unit_square, elements: triangle, size: 0.25}\n";
    for (const std::string& fv : {"", "discretisation: fv\n"}) {
        expect_says(case_error_of(mesh + fv + "problem: {robin: {wall: {h: 25, u_inf: 293}}}\n"),
                    {"problem.robin.wall", "no boundary physical group named 'wall'", "left"});
        expect_says(case_error_of(mesh + fv + "problem: {robin: {top: {h: \"x - 0.5\", u_inf: 1}}}\n"),
                    {"problem.robin.top.h = 'x - 0.5' is -", "h must be >= 0"});
        expect_says(case_error_of(mesh + fv + "problem: {robin: {top: {h: 1, u_inf: \"1/(x - x)\"}}}\n"),
                    {"problem.robin.top.u_inf = '1/(x - x)'", "must be finite"});
    }
    expect_says(case_error_of(mesh + "problem: {robin: {top: {h: -2, u_inf: 1}}}\n"),
                {"fv_test.yaml:2: problem.robin.top.h: expected h >= 0, got '-2'"});
    expect_says(case_error_of(mesh + "problem: {robin: {top: {u_inf: 1}}}\n"), {"problem.robin.top", "expected the key 'h'"});
    expect_says(case_error_of(mesh + "problem: {robin: {top: {h: 1, t_inf: 1}}}\n"), {"problem.robin.top.t_inf", "u_inf"});
    expect_says(case_error_of(mesh + "problem: {robin: {top: 3}}\n"), {"problem.robin.top", "expected a map {h: H, u_inf: U}"});
    expect_says(case_error_of(mesh + "problem: {dirichlet: {top: 0}, robin: {top: {h: 1}}}\n"),
                {"problem.robin.top", "also has a Dirichlet condition"});
    expect_says(case_error_of(mesh + "problem: {dirichlet: {boundary: 0}, robin: {top: {h: 1}}}\n"),
                {"problem.robin.top", "lies on nodes that Dirichlet conditions fix"});
}

TEST(Robin, CaseKeysAreReadInOrder)
{
    const CaseSpec spec = parse_case_text("mesh: {shape: unit_square}\nproblem:\n  robin:\n    top: {h: \"2 + x\", u_inf: 3}\n"
                                          "    right: {h: 1}\n",
                                          "case.yaml", "");
    ASSERT_EQ(spec.problem.robin.size(), 2u);
    EXPECT_EQ(spec.problem.robin[0].group, "top");
    EXPECT_EQ(spec.problem.robin[0].h, "2 + x");
    EXPECT_EQ(spec.problem.robin[0].u_inf, "3");
    EXPECT_EQ(spec.problem.robin[1].group, "right");
    EXPECT_EQ(spec.problem.robin[1].u_inf, "0");
    EXPECT_EQ(spec.resolved["problem"]["robin"],
              nlohmann::json::parse(R"([{"group": "top", "h": "2 + x", "u_inf": "3"}, {"group": "right", "h": "1", "u_inf": "0"}])"));
}
