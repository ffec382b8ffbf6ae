// Finite elements on meshes of prisms, pyramids and several cell types: conforming across the types
// (a polynomial of the degree exactly), the optimal rates at degree 1 and above, and what they do
// not take yet refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "tests/mixed_mesh_geometries.hpp"
#include "run_gpufem.hpp"

using namespace gpufem;

namespace {

/// A case on the mesh of geo_file: -div(kappa grad u) = f for the exact solution u, Dirichlet
/// on `dirichlet_groups`, Neumann (the exact flux) on the bottom of a cube.
std::string mixed_case(const std::string& geo_file, const std::string& exact, const std::string& f,
                       const std::vector<std::string>& dirichlet_groups, const std::string& extra = "")
{
    std::string text = "mesh:\n  geo: " + geo_file + "\nproblem:\n  kappa: 1\n  f: \"" + f + "\"\n  exact: \"" +
                       exact + "\"\n  dirichlet:\n";
    for (const std::string& group : dirichlet_groups) text += "    " + group + ": \"" + exact + "\"\n";
    return text + extra + "solver:\n  tolerance: 1e-12\n  max_iterations: 5000\nbackend: cpu\n";
}

/// Runs a case; its report.
nlohmann::json run_case(const test::TempDir& dir, const std::string& name, const std::string& yaml,
                        const std::string& args = "")
{
    const auto file = dir.write(name + ".yaml", yaml);
    const auto out = dir.path() / name;
    const auto r = test::run_gpufem("run " + file.string() + " -q -o " + out.string() + " " + args);
    EXPECT_EQ(r.exit_code, 0) << name << ":\n" << r.output;
    return r.exit_code == 0 ? test::read_json(out / "report.json") : nlohmann::json{};
}

const std::vector<std::string> cube_sides = {"left", "right", "front", "back", "top"};

}  // namespace

TEST(MixedMeshes, FirstOrderElementsReproduceALinearSolutionAcrossEveryCellType)
{
    // A linear u is in every first-order space (the pyramids' rational basis included): the
    // solution is exact to the solver's tolerance only if the elements conform where the
    // types meet (triangle faces of prisms and tetrahedra, pyramids' on both sides).
    test::TempDir dir;
    dir.write("four.geo", test::cube_four_types(6));
    dir.write("prisms.geo", test::cube_prisms(4));
    dir.write("square.geo", test::square_triangles_quadrilaterals(8));
    const std::string cube_u = "1 + x + 2*y - 3*z";
    const std::vector<std::string> cube_dirichlet = {"right", "front", "back", "top"};
    for (const auto& [name, geo, sides] :
         {std::tuple<std::string, std::string, std::vector<std::string>>{"four", "four.geo", cube_dirichlet},
          {"prisms", "prisms.geo", cube_dirichlet},
          {"square", "square.geo", {"left", "right", "top", "bottom"}}}) {
        const bool plane = name == "square";
        const std::string u = plane ? "1 + x - 2*y" : cube_u;
        // The cubes take their outward fluxes as Neumann conditions on the left (x = 0: -1;
        // on the four-type cube a group of triangles, the tetrahedra's, and quadrilaterals,
        // the prisms' and hexahedra's) and the bottom (z = 0: 3; the prisms' triangles).
        const auto report = run_case(dir, name, mixed_case((dir.path() / geo).string(), u, "0", sides,
                                                           plane ? "" : "  neumann:\n    left: -1\n    bottom: 3\n"));
        ASSERT_FALSE(report.is_null()) << name;
        EXPECT_LT(report["errors"]["max_nodal"].get<double>(), 1e-9) << name;
        EXPECT_LT(report["errors"]["l2"].get<double>(), 1e-9) << name;
        EXPECT_LT(report["errors"]["h1_semi"].get<double>(), 1e-8) << name;
    }
    const auto four = run_case(dir, "four_again", mixed_case((dir.path() / "four.geo").string(), cube_u, "0", cube_sides));
    ASSERT_FALSE(four.is_null());
    const std::string cells = four["mesh"]["cell_type"].get<std::string>();
    for (const char* type : {"tetrahedra", "hexahedra", "prisms", "pyramids"})
        EXPECT_NE(cells.find(type), std::string::npos) << cells;
}

TEST(MixedMeshes, FirstOrderElementsConvergeAtTheOptimalRates)
{
    // sin(pi x) sin(pi y) (exp(z)): L2 rate 2, H1 rate 1 as the cells halve, on triangles +
    // quadrilaterals, prisms alone, and prisms + tetrahedra + pyramids + hexahedra.
    test::TempDir dir;
    const std::string u2 = "sin(pi*x)*sin(pi*y)", f2 = "2*pi^2*sin(pi*x)*sin(pi*y)";
    const std::string u3 = "sin(pi*x)*sin(pi*y)*exp(z)", f3 = "(2*pi^2 - 1)*sin(pi*x)*sin(pi*y)*exp(z)";
    for (const std::string kind : {"square", "prisms", "four"}) {
        std::vector<double> l2, h1;
        // (The four-type cube's prism layers double from n = 10 on; at n = 16 Gmsh's Delaunay
        // gives it a flat pyramid, which the mesh check refuses.)
        for (const int n : kind == "square" ? std::vector<int>{8, 16, 32}
                           : kind == "prisms" ? std::vector<int>{4, 8, 16} : std::vector<int>{10, 20}) {
            const std::string geo = kind + std::to_string(n) + ".geo";
            dir.write(geo, kind == "square" ? test::square_triangles_quadrilaterals(n)
                                            : kind == "prisms" ? test::cube_prisms(n) : test::cube_four_types(n));
            const bool plane = kind == "square";
            const auto report = run_case(dir, kind + std::to_string(n),
                                         mixed_case((dir.path() / geo).string(), plane ? u2 : u3, plane ? f2 : f3,
                                                    plane ? std::vector<std::string>{"boundary"}
                                                          : std::vector<std::string>{"boundary"}));
            ASSERT_FALSE(report.is_null()) << kind << " " << n;
            l2.push_back(report["errors"]["l2"].get<double>());
            h1.push_back(report["errors"]["h1_semi"].get<double>());
        }
        for (std::size_t k = 1; k < l2.size(); ++k) {
            const double l2_rate = std::log2(l2[k - 1] / l2[k]), h1_rate = std::log2(h1[k - 1] / h1[k]);
            EXPECT_GT(l2_rate, 1.75) << kind << " level " << k << ": " << l2[k - 1] << " -> " << l2[k];
            EXPECT_LT(l2_rate, 2.3) << kind << " level " << k;
            EXPECT_GT(h1_rate, 0.85) << kind << " level " << k << ": " << h1[k - 1] << " -> " << h1[k];
            EXPECT_LT(h1_rate, 1.3) << kind << " level " << k;
        }
    }
}

TEST(MixedMeshes, WhatTheyDoNotTakeYetIsRefusedByName)
{
    test::TempDir dir;
    dir.write("four.geo", test::cube_four_types(4));
    const auto file = dir.write("four.yaml", mixed_case((dir.path() / "four.geo").string(), "x", "0", cube_sides));
    for (const auto& [args, message] :
         {std::pair<std::string, std::string>{"--set degree=3", "take degrees 1 to 2 (pyramids"},
          {"--set degree=4 --set mesh.refine=1", "take degrees 1 to 2 (pyramids"}}) {
        const auto out = dir.path() / "out";
        const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string() + " " + args);
        EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
        EXPECT_NE(r.output.find(message), std::string::npos) << args << ": " << r.output;
        EXPECT_FALSE(std::filesystem::exists(out / "report.json")) << args;
    }
}

namespace {

/// A polynomial of total degree k (1 + ... in x, y, z or x, y) and f = -laplace of it; the
/// outward flux -du/dx on x = 0 and -du/dz on z = 0.
struct PolynomialCase {
    std::string u, f, left_flux, bottom_flux;
};

PolynomialCase polynomial_of_degree(int k, bool plane)
{
    if (plane) {
        const char* u[] = {"", "1 + x - 2*y", "1 + x - 2*y + x*y + y^2", "1 + x - 2*y + x*y + y^2 + x^2*y - y^3",
                           "1 + x - 2*y + x*y + y^2 + x^2*y - y^3 + x^2*y^2"};
        const char* f[] = {"", "0", "-2", "-2 + 4*y", "-2 + 4*y - 2*x^2 - 2*y^2"};
        return {u[k], f[k], "", ""};
    }
    const char* u[] = {"", "1 + x + 2*y - 3*z", "1 + x + 2*y - 3*z + x*y - y*z + z^2",
                       "1 + x + 2*y - 3*z + x*y - y*z + z^2 + x^2*y - z^3",
                       "1 + x + 2*y - 3*z + x*y - y*z + z^2 + x^2*y - z^3 + x*y*z^2 - y^4"};
    const char* f[] = {"", "0", "-2", "-2 - 2*y + 6*z", "-2 - 2*y + 6*z - 2*x*y + 12*y^2"};
    const char* left[] = {"", "-1", "-(1 + y)", "-(1 + y)", "-(1 + y + y*z^2)"};
    const char* bottom[] = {"", "3", "3 + y", "3 + y", "3 + y"};
    return {u[k], f[k], left[k], bottom[k]};
}

}  // namespace

TEST(MixedMeshes, HigherDegreesReproduceAPolynomialOfTheirDegree)
{
    // A polynomial of total degree k lies in every degree-k space here (prisms: the triangle's
    // P_k times the line's; pyramids: Gmsh's space, holding P_k): the solution is exact to the
    // solver's tolerance only if gpufem's numbering shares every edge and face point across the
    // cells and types and the bases conform. The cubes take the exact flux as Neumann
    // conditions on x = 0 (tetrahedra's triangles and prisms' and hexahedra's quadrilaterals in
    // one group) and z = 0 (the prisms' triangles).
    test::TempDir dir;
    dir.write("four.geo", test::cube_four_types(6));
    dir.write("prisms.geo", test::cube_prisms(3));
    dir.write("square.geo", test::square_triangles_quadrilaterals(5));
    for (const auto& [name, highest] : {std::pair<std::string, int>{"prisms", 4}, {"four", 2}, {"square", 4}})
        for (int k = 2; k <= highest; ++k) {
            const bool plane = name == "square";
            const PolynomialCase p = polynomial_of_degree(k, plane);
            const std::string neumann = plane ? "" : "  neumann:\n    left: \"" + p.left_flux + "\"\n    bottom: \"" +
                                                         p.bottom_flux + "\"\n";
            const std::string yaml = mixed_case(
                (dir.path() / (name + ".geo")).string(), p.u, p.f,
                plane ? std::vector<std::string>{"boundary"} : std::vector<std::string>{"right", "front", "back", "top"},
                neumann + "degree: " + std::to_string(k) + "\n");
            // pmg (AMG on a mesh of several types, down the degrees on prisms), assembled and
            // matrix-free (also with its cycle in float on the lma blocks' float copies), at
            // the highest degree.
            std::vector<std::string> variants = {""};
            if (k == highest)
                variants.insert(variants.end(),
                                {"--set solver.preconditioner=pmg", "--set format=lma --set solver.preconditioner=pmg",
                                 "--set format=lma --set solver.preconditioner=pmg --set solver.amg.precision=float"});
            for (const std::string& args : variants) {
                const auto report = run_case(dir, name + std::to_string(k), yaml, args);
                ASSERT_FALSE(report.is_null()) << name << " " << k << " " << args;
                if (args.find("precision=float") != std::string::npos)
                    EXPECT_EQ(report["solver"]["preconditioner_details"]["precision"], "float") << name << " " << k;
                EXPECT_LT(report["errors"]["max_nodal"].get<double>(), 1e-8) << name << " degree " << k << " " << args;
                EXPECT_LT(report["errors"]["l2"].get<double>(), 1e-8) << name << " degree " << k << " " << args;
                EXPECT_LT(report["errors"]["h1_semi"].get<double>(), 1e-7) << name << " degree " << k << " " << args;
            }
        }
}

TEST(MixedMeshes, HigherDegreesConvergeAtTheirRates)
{
    // sin(pi x) sin(pi y) (exp(z)) at degree k: L2 rate k + 1, H1 rate k in the cell size
    // (1 / n: the cells halve, or for the four-type cube shrink by 1.5), on prisms (degrees 2,
    // 3), triangles + quadrilaterals (3) and the four-type cube (2). Measured here: prisms P2
    // 3.02 / 2.03, P3 3.87 / 2.87 (4.0 / 3.0 a level finer), the four types P2 2.85 / 1.84.
    test::TempDir dir;
    const std::string u2 = "sin(pi*x)*sin(pi*y)", f2 = "2*pi^2*sin(pi*x)*sin(pi*y)";
    const std::string u3 = "sin(pi*x)*sin(pi*y)*exp(z)", f3 = "(2*pi^2 - 1)*sin(pi*x)*sin(pi*y)*exp(z)";
    for (const auto& [kind, k, sizes] : {std::tuple<std::string, int, std::vector<int>>{"prisms", 2, {4, 8}},
                                         {"prisms", 3, {3, 6}},
                                         {"square", 3, {4, 8}},
                                         {"four", 2, {8, 12}}}) {
        std::vector<double> l2, h1;
        for (const int n : sizes) {
            const std::string geo = kind + std::to_string(n) + ".geo";
            dir.write(geo, kind == "square" ? test::square_triangles_quadrilaterals(n)
                                            : kind == "prisms" ? test::cube_prisms(n) : test::cube_four_types(n));
            const bool plane = kind == "square";
            const auto report = run_case(dir, kind + std::to_string(n) + "_" + std::to_string(k),
                                         mixed_case((dir.path() / geo).string(), plane ? u2 : u3, plane ? f2 : f3,
                                                    {"boundary"}, "degree: " + std::to_string(k) + "\n"));
            ASSERT_FALSE(report.is_null()) << kind << " " << n;
            l2.push_back(report["errors"]["l2"].get<double>());
            h1.push_back(report["errors"]["h1_semi"].get<double>());
        }
        const double refined = std::log(static_cast<double>(sizes[1]) / sizes[0]);
        const double l2_rate = std::log(l2[0] / l2[1]) / refined, h1_rate = std::log(h1[0] / h1[1]) / refined;
        EXPECT_GT(l2_rate, k + 1 - 0.3) << kind << " degree " << k << ": " << l2[0] << " -> " << l2[1];
        EXPECT_LT(l2_rate, k + 1 + 0.5) << kind << " degree " << k;
        EXPECT_GT(h1_rate, k - 0.3) << kind << " degree " << k << ": " << h1[0] << " -> " << h1[1];
        EXPECT_LT(h1_rate, k + 0.5) << kind << " degree " << k;
    }
}

TEST(MixedMeshes, RefinedByGpufemTheyConvergeAtTheirRates)
{
    // Gmsh's coarse mesh refined by gpufem (prisms into 8, pyramids into 6 pyramids and 4
    // tetrahedra): the cells halve exactly, so the rates are those of the degree from the
    // first refinement on (L2 k + 1, H1 k), and a polynomial of the degree stays exact.
    test::TempDir dir;
    dir.write("four.geo", test::cube_four_types(6));
    dir.write("prisms.geo", test::cube_prisms(2));
    const std::string u3 = "sin(pi*x)*sin(pi*y)*exp(z)", f3 = "(2*pi^2 - 1)*sin(pi*x)*sin(pi*y)*exp(z)";
    for (const auto& [name, k] : {std::pair<std::string, int>{"four", 1}, {"four", 2}, {"prisms", 3}}) {
        std::vector<double> l2, h1;
        for (int r = 0; r <= 2; ++r) {
            const auto report = run_case(dir, name + std::to_string(k) + "_r" + std::to_string(r),
                                         mixed_case((dir.path() / (name + ".geo")).string(), u3, f3, {"boundary"},
                                                    "degree: " + std::to_string(k) + "\n"),
                                         "--set mesh.refine=" + std::to_string(r));
            ASSERT_FALSE(report.is_null()) << name << " refine " << r;
            l2.push_back(report["errors"]["l2"].get<double>());
            h1.push_back(report["errors"]["h1_semi"].get<double>());
        }
        const double l2_rate = std::log2(l2[1] / l2[2]), h1_rate = std::log2(h1[1] / h1[2]);
        EXPECT_GT(l2_rate, k + 1 - 0.25) << name << " degree " << k << ": " << l2[1] << " -> " << l2[2];
        EXPECT_LT(l2_rate, k + 1 + 0.4) << name << " degree " << k;
        EXPECT_GT(h1_rate, k - 0.2) << name << " degree " << k << ": " << h1[1] << " -> " << h1[2];
        EXPECT_LT(h1_rate, k + 0.4) << name << " degree " << k;
    }
    const PolynomialCase p = polynomial_of_degree(2, false);
    const auto report = run_case(dir, "four_polynomial",
                                 mixed_case((dir.path() / "four.geo").string(), p.u, p.f, {"right", "front", "back", "top"},
                                            "  neumann:\n    left: \"" + p.left_flux + "\"\n    bottom: \"" + p.bottom_flux +
                                                "\"\ndegree: 2\n"),
                                 "--set mesh.refine=1");
    ASSERT_FALSE(report.is_null());
    EXPECT_LT(report["errors"]["max_nodal"].get<double>(), 1e-8);
    EXPECT_NE(report["mesh"]["cell_type"].get<std::string>().find("pyramids"), std::string::npos);
}

TEST(MixedMeshes, MatrixFreeElementMatricesGiveTheAssembledSolution)
{
    // lma on a mesh of several types: one operator per type summed (MixedLmaOperator), its
    // Dirichlet elimination with the summed diagonal; both scatters, both storages, against
    // csr, on the four-type cube and triangles + quadrilaterals.
    test::TempDir dir;
    dir.write("four.geo", test::cube_four_types(6));
    dir.write("square.geo", test::square_triangles_quadrilaterals(12));
    for (const std::string geo : {"four", "square"}) {
        const bool plane = geo == "square";
        const auto file = dir.write(geo + ".yaml", mixed_case((dir.path() / (geo + ".geo")).string(),
                                                              plane ? "sin(x)*y" : "sin(x)*y*z", "1 + x",
                                                              plane ? std::vector<std::string>{"left", "top"}
                                                                    : std::vector<std::string>{"right", "front"},
                                                              "  neumann:\n    bottom: \"x\"\n"));
        const auto ref = dir.path() / (geo + "_csr");
        ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q -o " + ref.string()).exit_code, 0);
        for (const std::string options : {"--set format_options.lma.scatter=atomic",
                                          "--set format_options.lma.scatter=colour --set format_options.lma.symmetric=true"}) {
            const auto out = dir.path() / (geo + "_lma");
            const auto r = test::run_gpufem("run " + file.string() + " -q --set format=lma " + options + " -o " +
                                            out.string());
            ASSERT_EQ(r.exit_code, 0) << geo << " " << options << ":\n" << r.output;
            const auto cmp = test::run_gpufem("compare " + (ref / "result.vtu").string() + " " +
                                              (out / "result.vtu").string() + " --tolerance 1e-8");
            EXPECT_EQ(cmp.exit_code, 0) << geo << " " << options << ": " << cmp.output;
            const auto report = test::read_json(out / "report.json");
            EXPECT_EQ(report["format"], "lma");
            EXPECT_NE(report["format_parameters"].dump().find(plane ? "triangles: " : "pyramids: "), std::string::npos)
                << report["format_parameters"].dump();
        }
    }
}
