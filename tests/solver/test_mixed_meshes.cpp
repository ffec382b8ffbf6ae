// First-order finite elements on meshes of prisms, pyramids and several cell types (issue 11,
// item 5): conforming across the types (a linear solution exactly), the optimal rates, and
// what they do not take yet refused by name.
#include <gtest/gtest.h>

#include <cmath>
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
         {std::pair<std::string, std::string>{"--set degree=2", "several cell types of order 1 only (degree 1, no mesh.refine"},
          {"--set mesh.refine=1", "several cell types of order 1 only (degree 1, no mesh.refine"}}) {
        const auto out = dir.path() / "out";
        const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string() + " " + args);
        EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
        EXPECT_NE(r.output.find(message), std::string::npos) << args << ": " << r.output;
        EXPECT_FALSE(std::filesystem::exists(out / "report.json")) << args;
    }
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
