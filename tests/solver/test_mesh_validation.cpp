// The mesh checks before assembly through the gpufem program, for finite elements and finite
// volumes: hanging nodes, floating parts and (finite volumes) 2D meshes off their plane are
// refused with the file, cell and node named and exit 1; a valid mesh whose surfaces are
// oriented differently is solved exactly by both.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "linalg/executor.hpp"
#include "run_gpufem.hpp"
#include "solver/case/case_file.hpp"
#include "solver/run/mesh_validation.hpp"
#include "solver/run/pipeline.hpp"
#include "tests/mixed_mesh_geometries.hpp"

using namespace gpufem;

namespace {

/// A 2D Gmsh 2.2 mesh: nodes (x y z per node), boundary lines of physical group 1 "boundary",
/// quadrilaterals (or triangles, 3 nodes each) with their physical group (2 "domain", 3 "island").
std::string msh(const std::vector<std::array<double, 3>>& nodes, const std::vector<std::array<int, 2>>& lines,
                const std::vector<std::vector<int>>& cells, const std::vector<int>& groups)
{
    std::string out = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n3\n1 1 \"boundary\"\n2 2 \"domain\"\n"
                      "2 3 \"island\"\n$EndPhysicalNames\n$Nodes\n" + std::to_string(nodes.size()) + "\n";
    for (std::size_t i = 0; i < nodes.size(); ++i)
        out += std::to_string(i + 1) + " " + std::to_string(nodes[i][0]) + " " + std::to_string(nodes[i][1]) + " " +
               std::to_string(nodes[i][2]) + "\n";
    out += "$EndNodes\n$Elements\n" + std::to_string(lines.size() + cells.size()) + "\n";
    int tag = 1;
    for (const auto& [a, b] : lines) out += std::to_string(tag++) + " 1 2 1 1 " + std::to_string(a) + " " + std::to_string(b) + "\n";
    for (std::size_t c = 0; c < cells.size(); ++c) {
        out += std::to_string(tag++) + (cells[c].size() == 4 ? " 3 2 " : " 2 2 ") + std::to_string(groups[c]) + " " +
               std::to_string(groups[c]);
        for (const int v : cells[c]) out += " " + std::to_string(v);
        out += "\n";
    }
    return out + "$EndElements\n";
}

/// A case on the mesh file: u = x + 2y, Dirichlet on "boundary", finite elements or volumes.
std::string linear_case(const std::string& mesh, bool fv)
{
    return "mesh:\n  file: " + mesh + "\ndiscretisation: " + (fv ? "fv" : "fe") +
           "\nproblem:\n  f: 0\n  exact: \"x + 2*y\"\n  dirichlet:\n    boundary: \"x + 2*y\"\n"
           "solver:\n  tolerance: 1e-12\nbackend: cpu\n";
}

/// Runs the case; its result (exit code and output) and the output folder's path.
test::CommandResult run_case(const test::TempDir& dir, const std::string& yaml, const std::string& name)
{
    const auto file = dir.write(name + ".yaml", yaml);
    return test::run_gpufem("run " + file.string() + " --output " + (dir.path() / name).string());
}

/// Runs the case for finite elements and finite volumes, unrefined and refined once (the
/// refined mesh's conformity and parts are checked on the file's cells); every run must fail
/// with exit 1, the message parts and no output.
void expect_refused(const std::string& mesh_text, const std::vector<std::string>& parts)
{
    for (const auto& [fv, refine] : {std::pair{false, 0}, {true, 0}, {false, 1}, {true, 1}}) {
        SCOPED_TRACE(std::string(fv ? "finite volumes" : "finite elements") + ", refine " + std::to_string(refine));
        test::TempDir dir;
        const auto mesh = dir.write("bad.msh", mesh_text);
        std::string yaml = linear_case(mesh.string(), fv);
        if (refine > 0) yaml.replace(yaml.find("\ndiscretisation"), 0, "\n  refine: " + std::to_string(refine));
        const auto r = run_case(dir, yaml, "bad");
        EXPECT_EQ(r.exit_code, 1) << r.output;
        for (const std::string& part : parts)
            EXPECT_NE(r.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << r.output;
        EXPECT_FALSE(std::filesystem::exists(dir.path() / "bad" / "report.json")) << "output written";
    }
}

/// The unit square cut at a node 1e-4 above its bottom edge: one thin triangle of quality about
/// 1.2e-4 (its area against an equilateral triangle's with the same longest edge).
std::string thin_triangle_msh()
{
    return msh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 1e-4, 0}}, {{1, 2}, {2, 3}, {3, 4}, {4, 1}},
               {{1, 2, 5}, {1, 5, 4}, {5, 2, 3}, {5, 3, 4}}, {2, 2, 2, 2});
}

}  // namespace

TEST(MeshValidation, HangingNodeIsRefused)
{
    // A quadrilateral of height 2 beside two of height 1: node 7 (1, 1) hangs on its edge.
    const std::string mesh = msh({{0, 0, 0}, {1, 0, 0}, {1, 2, 0}, {0, 2, 0}, {2, 0, 0}, {2, 1, 0}, {1, 1, 0}, {2, 2, 0}},
                                 {{1, 2}, {2, 5}, {5, 6}, {6, 8}, {8, 3}, {3, 4}, {4, 1}},
                                 {{1, 2, 3, 4}, {2, 5, 6, 7}, {7, 6, 8, 3}}, {2, 2, 2});
    expect_refused(mesh, {"bad.msh", "is not conforming: node 6 at (1, 1, 0)", "hanging node",
                          "cell 0 (counted from 0; nodes at (0, 0, 0), (1, 0, 0), (1, 2, 0), (0, 2, 0))"});
}

TEST(MeshValidation, FloatingPartIsNamed)
{
    // The unit square with the condition on its boundary, and a square apart from it ("island").
    const std::string mesh = msh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {2, 0, 0}, {3, 0, 0}, {3, 1, 0}, {2, 1, 0}},
                                 {{1, 2}, {2, 3}, {3, 4}, {4, 1}}, {{1, 2, 3, 4}, {5, 6, 7, 8}}, {2, 3});
    expect_refused(mesh, {"bad.msh", "a floating part of 1 cells (subdomain 'island'; first cell 1",
                          "problem.dirichlet: boundary", "2 parts in all"});
}

TEST(MeshValidation, FiniteVolumesRefuseMeshesOffTheirPlane)
{
    const std::string mesh = msh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0.3}, {0, 1, 0}}, {{1, 2}, {2, 3}, {3, 4}, {4, 1}},
                                 {{1, 2, 3}, {1, 3, 4}}, {2, 2});
    expect_refused(mesh, {"bad.msh", "is 2D but does not lie in a plane z = const"});
}

TEST(MeshValidation, SurfacesOfBothOrientationsAreSolvedExactly)
{
    // Two unit squares side by side, the right one's corners clockwise (a surface drawn the other
    // way round); refined twice, u = x + 2y is reproduced by both discretisations.
    const std::string mesh = msh({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {2, 0, 0}, {2, 1, 0}},
                                 {{1, 2}, {2, 5}, {5, 6}, {6, 3}, {3, 4}, {4, 1}}, {{1, 2, 3, 4}, {2, 3, 6, 5}}, {2, 2});
    for (const bool fv : {false, true}) {
        SCOPED_TRACE(fv ? "finite volumes" : "finite elements");
        test::TempDir dir;
        const auto file = dir.write("both.msh", mesh);
        std::string yaml = linear_case(file.string(), fv);
        yaml.replace(yaml.find("\ndiscretisation"), 0, "\n  refine: 2");
        const auto r = run_case(dir, yaml, "both");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto report = test::read_json(dir.path() / "both" / "report.json");
        EXPECT_LT(report["errors"]["l2"].get<double>(), 1e-9) << r.output;
    }
}

TEST(MeshValidation, QualityBoundsAreCaseKeys)
{
    test::TempDir dir;
    const auto file = dir.write("thin.msh", thin_triangle_msh());
    const auto with = [&](const std::string& keys) {
        std::string yaml = linear_case(file.string(), false);
        yaml.replace(yaml.find("\ndiscretisation"), 0, keys);
        return yaml;
    };
    const auto by_default = run_case(dir, with(""), "default");
    ASSERT_EQ(by_default.exit_code, 0) << by_default.output;
    for (const char* part : {"1 cells have a quality below 1e-03", "the worst 0.000115 (cell 0)"})
        EXPECT_NE(by_default.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << by_default.output;
    const auto lowered = run_case(dir, with("\n  warn_quality: 1e-5"), "lowered");
    ASSERT_EQ(lowered.exit_code, 0) << lowered.output;
    EXPECT_EQ(lowered.output.find("have a quality below"), std::string::npos) << lowered.output;
    const auto strict = run_case(dir, with("\n  min_quality: 1e-3"), "strict");
    EXPECT_EQ(strict.exit_code, 1) << strict.output;
    for (const char* part : {"thin.msh", "cell 0 (counted from 0", "is a sliver or degenerate", "mesh.min_quality"})
        EXPECT_NE(strict.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << strict.output;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "strict" / "report.json"));
}

TEST(MeshValidation, TheVerdictOnACachedMeshIsKeptBesideItsCacheFile)
{
    // A thin triangle (quality 1.2e-4): its warning comes on every run, from the checks or,
    // once the mesh is cached, from the verdict kept beside the cache file.
    test::TempDir dir;
    const auto file = dir.write("thin.msh", thin_triangle_msh());
    const std::string yaml = linear_case(file.string(), false);
    const std::string kept = "as found by an earlier run on the cached mesh";
    const std::string warning = "the worst 0.000115 (cell 0)";
    const auto first = run_case(dir, yaml, "first");
    ASSERT_EQ(first.exit_code, 0) << first.output;
    EXPECT_EQ(first.output.find(kept), std::string::npos) << first.output;
    const auto second = run_case(dir, yaml, "second");
    ASSERT_EQ(second.exit_code, 0) << second.output;
    for (const std::string& part : {kept, warning})
        EXPECT_NE(second.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << second.output;
    // Other quality bounds check the mesh again.
    std::string stricter = yaml;
    stricter.replace(stricter.find("\ndiscretisation"), 0, "\n  warn_quality: 1e-2");
    const auto third = run_case(dir, stricter, "third");
    ASSERT_EQ(third.exit_code, 0) << third.output;
    EXPECT_EQ(third.output.find(kept), std::string::npos) << third.output;
    // A record that does not match its mesh is ignored.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path() / ".gpufem-cache"))
        if (entry.path().extension() == ".checks") {
            std::string text;
            {
                std::ifstream in(entry.path());
                std::getline(in, text);
            }
            ASSERT_NE(text.find("\"cells\":4"), std::string::npos) << text;
            for (std::size_t cells = text.find("\"cells\":4"); cells != std::string::npos; cells = text.find("\"cells\":4"))
                text.replace(cells, 9, "\"cells\":5");  // every verdict's
            std::ofstream(entry.path()) << text;
        }
    const auto fourth = run_case(dir, stricter, "fourth");
    ASSERT_EQ(fourth.exit_code, 0) << fourth.output;
    EXPECT_EQ(fourth.output.find(kept), std::string::npos) << fourth.output;
}

TEST(MeshValidation, AVerdictIsKeptForEachRefinementAndDegreeOfTheCachedMesh)
{
    // One cache file serves every refinement and degree of the thin-triangle mesh; the checks run
    // on the refined mesh with the degree's nodes, so each keeps its own verdict beside it.
    test::TempDir dir;
    const auto file = dir.write("thin.msh", thin_triangle_msh());
    const std::string yaml = linear_case(file.string(), false);
    std::string refined = yaml;
    refined.replace(refined.find("\ndiscretisation"), 0, "\n  refine: 1");
    const std::string kept = "as found by an earlier run on the cached mesh";
    const auto expect_run = [&](const std::string& case_text, const std::string& name, bool from_record) {
        const auto r = run_case(dir, case_text, name);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_EQ(r.output.find(kept) != std::string::npos, from_record) << name << ":\n" << r.output;
        EXPECT_EQ(r.output.find("mesh: from the cache") != std::string::npos, name != "first") << name << ":\n" << r.output;
    };
    expect_run(yaml, "first", false);
    expect_run(refined, "refined", false);
    expect_run(refined, "refined_again", true);
    expect_run("degree: 2\n" + yaml, "degree_2", false);
    expect_run("degree: 2\n" + yaml, "degree_2_again", true);
    expect_run(yaml, "first_again", true);
}

TEST(MeshValidation, AGroupTheMeshLacksIsNamedWithTheCaseFilesLine)
{
    test::TempDir dir;
    const auto file = dir.write("thin.msh", thin_triangle_msh());
    std::string yaml = linear_case(file.string(), false);
    yaml.replace(yaml.find("    boundary:"), 13, "    boundry:");
    const auto r = run_case(dir, yaml, "typo");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("typo.yaml:8: problem.dirichlet.boundry: mesh"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("has no boundary physical group named 'boundry' (boundary groups: boundary)"),
              std::string::npos)
        << r.output;
}

TEST(MeshValidation, ARefinedGmshMeshIsCheckedOnGmshsCellsWithTheSameVerdict)
{
    // Conformity and parts checked on Gmsh's cells before the refinement give the verdict the
    // full checks give on the refined mesh: the same face counts (each face split into four,
    // each edge into two in 2D), parts and worst quality; tetrahedra, triangles with
    // quadrilaterals, prisms, and the four 3D types together, refined once and twice.
    const ExecPtr cpu = Executor::create_cpu();
    test::TempDir dir;
    dir.write("square.geo", test::square_triangles_quadrilaterals(6));
    dir.write("prisms.geo", test::cube_prisms(3));
    dir.write("four.geo", test::cube_four_types(6));
    dir.write("tets.geo", "SetFactory(\"OpenCASCADE\");\nBox(1) = {0, 0, 0, 1, 1, 1};\n"
                          "Mesh.MeshSizeMax = 0.3;\nPhysical Volume(\"domain\") = {1};\n"
                          "Physical Surface(\"boundary\") = {1, 2, 3, 4, 5, 6};\n");
    for (const auto& [geo, group] : {std::pair{"square.geo", "boundary"}, {"prisms.geo", "bottom"},
                                     {"four.geo", "top"}, {"tets.geo", "boundary"}})
        for (const int refine : {1, 2}) {
            SCOPED_TRACE(std::string(geo) + ", refine " + std::to_string(refine));
            const CaseSpec spec = parse_case_text(
                fmt::format("mesh:\n  geo: {}\n  refine: {}\nproblem:\n  f: 1\n"
                            "  dirichlet:\n    {}: 0\n",
                            (dir.path() / geo).string(), refine, group),
                "refined", dir.path());
            const CaseMesh fine = load_case_mesh(spec, cpu);
            const MeshValidation full = validate_case_mesh(spec, fine.mesh, cpu);
            const CaseMesh coarse = load_case_mesh(spec, cpu, MeshCopy::host_only, MeshStage::coarse);
            ASSERT_GE(fine.mesh.num_cells(), coarse.mesh.num_cells() * (fine.mesh.dim == 3 ? 8 : 4) * (refine == 2 ? (fine.mesh.dim == 3 ? 8 : 4) : 1));
            const CoarseMeshVerdict verdict = check_coarse_mesh(spec, coarse.mesh, cpu);
            const MeshValidation checked = validate_case_mesh(spec, fine.mesh, cpu, {}, &verdict);
            ASSERT_TRUE(full.conformity.checked);
            EXPECT_TRUE(checked.conformity.checked);
            EXPECT_EQ(checked.conformity.interior_faces, full.conformity.interior_faces);
            EXPECT_EQ(checked.conformity.boundary_faces, full.conformity.boundary_faces);
            EXPECT_GT(full.conformity.interior_faces, coarse.mesh.num_cells());
            EXPECT_EQ(checked.parts, full.parts);
            EXPECT_EQ(checked.quality.worst, full.quality.worst);
            EXPECT_EQ(checked.quality.worst_cell, full.quality.worst_cell);
        }
}
