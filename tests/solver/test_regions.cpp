// Coefficients per region, anisotropic kappa, the reaction term and a convection velocity
// given by expressions, through the pipeline on the CPU backend: manufactured solutions at the
// optimal rates (a kappa that jumps by 10 across an interface the mesh follows: finite
// elements of degree 1-3 and finite volumes; a tensor kappa; c u and b . grad u with variable
// coefficients), the same solution from every operator, and the errors for maps that do not
// fit the mesh.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "assembly/coefficients.hpp"
#include "case_runs.hpp"
#include "fv_test_support.hpp"
#include "random_values.hpp"
#include "region_cases.hpp"

using namespace gpufem;
using test::case_error_of;
using test::expect_rates;
using test::expect_says;
using test::run_fv_case;
using test::solution_of;

namespace {

/// The errors of yaml run at each refinement level 0..levels-1 (its placeholder "refine: R").
std::vector<ErrorNorms> errors_over(const std::string& yaml, int levels, const std::filesystem::path& dir = {})
{
    std::vector<std::string> values;
    for (int r = 0; r < levels; ++r) values.push_back("refine: " + std::to_string(r));
    return test::errors_at(yaml, "refine: R", values, dir);
}

}  // namespace

TEST(Regions, PiecewiseKappaAtTheOptimalRatesInTwoDimensions)
{
    // Gmsh's triangles and quadrilaterals conforming to the cut, refined by gpufem.
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    for (const bool quads : {false, true}) {
        const std::string geo = test::write_halves_geo(folder.path(), 2, 0.25, quads);
        const std::string what = quads ? "quadrilaterals" : "triangles";
        for (int k = 1; k <= 3; ++k) {
            const std::string yaml = fmt::format("mesh: {{geo: {}, refine: R}}\ndegree: {}\n{}solver: {{tolerance: 1e-12}}\n",
                                                 geo, k, test::piecewise_problem(2));
            expect_rates(errors_over(yaml, 3, folder.path()), k, fmt::format("piecewise kappa, {} degree {}", what, k));
        }
        const std::string fv = fmt::format("mesh: {{geo: {}, refine: R}}\ndiscretisation: fv\n{}solver: {{tolerance: 1e-12}}\n",
                                           geo, test::piecewise_problem(2));
        expect_rates(errors_over(fv, 4, folder.path()), 1, "piecewise kappa, finite volumes on " + what, false);
    }
}

TEST(Regions, PiecewiseKappaAtTheOptimalRatesInThreeDimensions)
{
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const std::string geo = test::write_halves_geo(folder.path(), 3, 0.35);
    for (int k = 1; k <= 2; ++k) {
        const std::string yaml = fmt::format("mesh: {{geo: {}, refine: R}}\ndegree: {}\n{}solver: {{tolerance: 1e-12}}\n",
                                             geo, k, test::piecewise_problem(3));
        expect_rates(errors_over(yaml, 3, folder.path()), k, fmt::format("piecewise kappa, tetrahedra degree {}", k));
    }
    const std::string fv = fmt::format("mesh: {{geo: {}, refine: R}}\ndiscretisation: fv\n{}solver: {{tolerance: 1e-12}}\n",
                                       geo, test::piecewise_problem(3));
    expect_rates(errors_over(fv, 3, folder.path()), 1, "piecewise kappa, finite volumes on tetrahedra", false);
}

namespace {

/// kappa = [[1 + x, 0.3], [0.3, 2]], u = sin(pi x) sin(pi y), u = 0 on the boundary.
const std::string anisotropic_2d =
    "problem:\n  kappa: {xx: \"1 + x\", xy: 0.3, yy: 2}\n"
    "  f: \"-pi*cos(pi*x)*sin(pi*y) + (3 + x)*pi^2*sin(pi*x)*sin(pi*y) - 0.6*pi^2*cos(pi*x)*cos(pi*y)\"\n"
    "  exact: \"sin(pi*x)*sin(pi*y)\"\n  dirichlet: {boundary: 0}\n";

/// kappa = [[2, 0.5, 0], [0.5, 1, 0.2], [0, 0.2, 1.5]], u = sin(pi x) sin(pi y) sin(pi z).
const std::string anisotropic_3d =
    "problem:\n  kappa: {xx: 2, xy: 0.5, yy: 1, yz: 0.2, zz: 1.5}\n"
    "  f: \"4.5*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z) - pi^2*cos(pi*x)*cos(pi*y)*sin(pi*z) - "
    "0.4*pi^2*sin(pi*x)*cos(pi*y)*cos(pi*z)\"\n"
    "  exact: \"sin(pi*x)*sin(pi*y)*sin(pi*z)\"\n  dirichlet: {boundary: 0}\n";

}  // namespace

TEST(Regions, AnisotropicKappaAtTheOptimalRates)
{
    for (int k = 1; k <= 3; ++k) {
        const std::string yaml = fmt::format("mesh: {{shape: unit_square, elements: triangle, size: 0.25, refine: R}}\n"
                                             "degree: {}\n{}solver: {{tolerance: 1e-12}}\n", k, anisotropic_2d);
        expect_rates(errors_over(yaml, 3), k, fmt::format("anisotropic kappa, triangles degree {}", k));
    }
    for (int k = 1; k <= 2; ++k) {
        const std::string yaml = fmt::format("mesh: {{shape: unit_cube, elements: hexahedron, size: 0.25, refine: R}}\n"
                                             "degree: {}\n{}solver: {{tolerance: 1e-12}}\n", k, anisotropic_3d);
        expect_rates(errors_over(yaml, 3), k, fmt::format("anisotropic kappa, hexahedra degree {}", k));
    }
}

TEST(Regions, ReactionAndConvectionFieldAtTheOptimalRates)
{
    // -lap u + b . grad u + c u = f with b = (y, -x), c = 1 + x^2, u = cos(pi x) e^y.
    const std::string problem =
        "problem:\n  c: \"1 + x^2\"\n  convection: [y, \"-x\"]\n"
        "  f: \"(pi^2 - x + x^2)*cos(pi*x)*exp(y) - pi*y*sin(pi*x)*exp(y)\"\n"
        "  exact: \"cos(pi*x)*exp(y)\"\n  dirichlet: {boundary: \"cos(pi*x)*exp(y)\"}\n";
    for (int k = 1; k <= 3; ++k) {
        const std::string yaml = fmt::format("mesh: {{shape: unit_square, elements: quadrilateral, size: 0.25, refine: R}}\n"
                                             "degree: {}\n{}solver: {{method: bicgstab, tolerance: 1e-12}}\n", k, problem);
        expect_rates(errors_over(yaml, 3), k, fmt::format("reaction and convection, quadrilaterals degree {}", k));
    }
    // Finite volumes with the reaction alone (upwind convection is first order).
    const std::string fv = "mesh: {shape: unit_square, elements: quadrilateral, size: 0.1, refine: R}\ndiscretisation: fv\n"
                           "problem:\n  c: {domain: \"1 + x^2\"}\n  f: \"(pi^2 + x^2)*cos(pi*x)*exp(y)\"\n"
                           "  exact: \"cos(pi*x)*exp(y)\"\n  dirichlet: {boundary: \"cos(pi*x)*exp(y)\"}\n"
                           "solver: {tolerance: 1e-12}\n";
    expect_rates(errors_over(fv, 3), 1, "reaction, finite volumes on quadrilaterals", false);
}

TEST(Regions, EveryOperatorAndEveryWayOfWritingAValueGiveOneSolution)
{
    // A tensor per region equal in both regions is the global tensor; a region map of the
    // same value everywhere is the plain value; lma (both storages) with pmg and csr with amg
    // agree on the piecewise problem.
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const std::string geo = test::write_halves_geo(folder.path(), 2, 0.25, true);
    const std::string mesh = "mesh: {geo: " + geo + ", refine: 1}\ndegree: 2\n";
    const std::string tail = "  f: 1\n  c: {soft: 0.5, hard: \"x\"}\n  dirichlet: {boundary: 0}\nsolver: {tolerance: 1e-12}\n";
    const std::vector<double> global =
        solution_of(mesh + "problem:\n  kappa: {xx: 2, xy: 0.5, yy: 1}\n" + tail, folder.path());
    const std::vector<double> per_region =
        solution_of(mesh + "problem:\n  kappa: {soft: {xx: 2, xy: 0.5, yy: 1}, hard: {yy: 1, xx: 2, xy: 0.5}}\n" + tail,
                    folder.path());
    EXPECT_LT(test::max_relative_difference(per_region, global), 1e-10);
    const std::vector<double> scalar = solution_of(mesh + "problem:\n  kappa: 3\n" + tail, folder.path());
    const std::vector<double> diagonal =
        solution_of(mesh + "problem:\n  kappa: {soft: {xx: 3, yy: 3}, hard: 3}\n" + tail, folder.path());
    EXPECT_LT(test::max_relative_difference(diagonal, scalar), 1e-10);

    const std::string base = "mesh: {geo: " + geo + ", refine: 1}\ndegree: 2\n" + test::piecewise_problem(2);
    const std::vector<double> reference =
        solution_of(base + "solver: {tolerance: 1e-12, preconditioner: amg}\n", folder.path());
    for (const std::string variant : {"format: lma\nsolver: {tolerance: 1e-12, preconditioner: pmg}\n",
                                      "format: lma\nformat_options: {lma: {symmetric: true, scatter: colour}}\n"
                                      "solver: {tolerance: 1e-12, preconditioner: jacobi}\n"})
        EXPECT_LT(test::max_relative_difference(solution_of(base + variant, folder.path()), reference), 1e-8) << variant;
}

TEST(Regions, MapsThatDoNotFitTheMeshAreRefused)
{
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const std::string mesh = "mesh: {geo: " + test::write_halves_geo(folder.path(), 2, 0.25) + "}\n";
    const std::string dirichlet = "  dirichlet: {boundary: 0}\n";
    for (const std::string fv : {"", "discretisation: fv\n"}) {
        expect_says(case_error_of(mesh + fv + "problem:\n  kappa: {soft: 1}\n" + dirichlet, folder.path()),
                    {"problem.kappa: ", "cells of mesh", "lie in no region the map names", "in 'hard'"});
        expect_says(case_error_of(mesh + fv + "problem:\n  f: {soft: 1, steel: 2}\n" + dirichlet, folder.path()),
                    {"problem.f.steel: mesh", "no physical group 'steel' of dimension 2", "its regions: soft, hard"});
        expect_says(case_error_of(mesh + fv + "problem:\n  c: {soft: \"x - 0.25\", hard: 1}\n" + dirichlet, folder.path()),
                    {"problem.c.soft = 'x - 0.25' is -", "c must be >= 0"});
        expect_says(case_error_of(mesh + fv + "problem:\n  kappa: {soft: 1, hard: \"x - 0.75\"}\n" + dirichlet, folder.path()),
                    {"problem.kappa.hard = 'x - 0.75' is -", "kappa must be positive"});
    }
    expect_says(case_error_of(mesh + "problem:\n  kappa: {xx: 1, xy: 2, yy: 1}\n" + dirichlet, folder.path()),
                {"problem.kappa = (1, 2, 1) is not positive definite"});
    expect_says(case_error_of(mesh + "problem:\n  kappa: {soft: 1, hard: {xx: 1, xy: \"2*x\", yy: 1}}\n" + dirichlet, folder.path()),
                {"problem.kappa is not positive definite at (", "cell"});
    expect_says(case_error_of(mesh + "problem:\n  kappa: {xx: 1, yy: 1, zz: 2}\n" + dirichlet, folder.path()),
                {"problem.kappa", "zz", "2D"});
    expect_says(case_error_of(mesh + "discretisation: fv\nproblem:\n  kappa: {xx: 1, yy: 2}\n" + dirichlet, folder.path()),
                {"problem.kappa: finite volumes take a scalar kappa"});
    expect_says(case_error_of(mesh + "problem:\n  kappa: {xx: 1, xy: 0.1}\n" + dirichlet, folder.path()),
                {"problem.kappa", "needs xx and yy"});
    expect_says(case_error_of(mesh + "problem:\n  c: -1\n" + dirichlet, folder.path()), {"problem.c: expected c >= 0, got '-1'"});
    expect_says(case_error_of(mesh + "problem:\n  convection: {soft: [1, 0], hard: [1]}\n" + dirichlet, folder.path()),
                {"problem.convection.hard", "list of 2 or 3"});
    expect_says(case_error_of("mesh: {shape: unit_cube, size: 0.5}\nproblem:\n  convection: [1, \"x\"]\n" + dirichlet),
                {"problem.convection", "3D mesh needs 3 components"});
}

TEST(Regions, CaseKeysAreReadAndResolved)
{
    const CaseSpec spec = parse_case_text(
        "mesh: {shape: unit_square}\nproblem:\n  kappa: {steel: 50, wood: {xx: 1, xy: \"0.1*x\", yy: 2}}\n"
        "  f: {steel: 1, wood: \"x\"}\n  c: 2\n  convection: [\"y\", 1]\n",
        "case.yaml", "");
    ASSERT_EQ(spec.problem.kappa_regions.size(), 2u);
    EXPECT_EQ(spec.problem.kappa_regions[0].region, "steel");
    EXPECT_EQ(spec.problem.kappa_regions[0].components, (std::vector<std::string>{"50"}));
    EXPECT_EQ(spec.problem.kappa_regions[1].components, (std::vector<std::string>{"1", "0.1*x", "", "2", "", ""}));
    EXPECT_EQ(spec.problem.f_regions.size(), 2u);
    EXPECT_EQ(spec.problem.reaction, "2");
    EXPECT_EQ(spec.problem.convection_field, (std::vector<std::string>{"y", "1"}));
    EXPECT_TRUE(spec.problem.convection.empty());
    EXPECT_EQ(spec.resolved["problem"]["kappa"],
              nlohmann::json::parse(R"({"steel": "50", "wood": {"xx": "1", "xy": "0.1*x", "yy": "2"}})"));
    EXPECT_EQ(spec.resolved["problem"]["c"], "2");
    const CaseSpec numbers = parse_case_text("mesh: {shape: unit_square}\nproblem: {convection: [1, -0.5]}\n", "c.yaml", "");
    EXPECT_EQ(numbers.problem.convection, (std::vector<double>{1.0, -0.5}));
}

TEST(Regions, TagsTheCellsHoldAreFoundAmongTheCandidatesInOnePass)
{
    const unsigned seed = test::random_seed();
    for (const int strays : {0, 3}) {
        const Mesh mesh = test::mesh_with_random_regions(1000003, {3, 7, 40}, strays, seed + static_cast<unsigned>(strays));
        const std::vector<int> held = test::distinct_tags(mesh.cell_group);
        ASSERT_TRUE(std::binary_search(held.begin(), held.end(), 7));
        // Every tag held among the candidates (unsorted, with a repeat): exactly those held.
        const PresentTags all = present_region_tags(mesh, {40, 3, 7, 12, 0, 999, 3});
        EXPECT_EQ(all.tags, held);
        EXPECT_FALSE(all.others);
        // Without 7 and 999: the cells of 7 (and the strays) hold none of the candidates.
        std::vector<int> without;
        for (const int t : held)
            if (t != 7 && t != 999) without.push_back(t);
        const PresentTags some = present_region_tags(mesh, {0, 3, 12, 40});
        EXPECT_EQ(some.tags, without);
        EXPECT_TRUE(some.others);
        // Every region's tag but the strays': others exactly when there are strays.
        EXPECT_EQ(present_region_tags(mesh, {3, 7, 40}).others, strays > 0);
    }
    // A mesh without groups: every cell in tag 0.
    Mesh plain;
    plain.nodes_per_cell = 1;
    plain.cells.assign(10, 0);
    EXPECT_EQ(present_region_tags(plain, {5, 0}).tags, std::vector<int>{0});
    EXPECT_FALSE(present_region_tags(plain, {5, 0}).others);
    EXPECT_TRUE(present_region_tags(plain, {5}).others);
}
