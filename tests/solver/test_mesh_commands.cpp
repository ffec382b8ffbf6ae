// `gpufem mesh-info` and `gpufem new-case` through the program: the summary as text and JSON,
// a written case that runs, and bad or hostile input refused with exit code 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "solver/case/case_skeleton.hpp"
#include "solver/run_gpufem.hpp"
#include "summary_meshes.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

namespace {

/// Cells per edge of each block of test::two_blocks_geo.
constexpr int block_cells = 4;

/// The standard output alone of `gpufem <args>` (its standard error dropped).
std::string gpufem_stdout(const std::string& args)
{
    return test::run_command("(" + test::gpufem_command() + " " + args + " 2>/dev/null)").output;
}

std::string read_text(const fs::path& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The group of a mesh-info JSON summary named `name` (null when absent).
nlohmann::json json_group(const nlohmann::json& summary, const std::string& name)
{
    for (const nlohmann::json& g : summary["groups"])
        if (g["name"] == name) return g;
    return nullptr;
}

TEST(MeshInfo, PrintsCellsGroupsAndQuality)
{
    const test::TempDir dir;
    const fs::path geo = dir.write("blocks.geo", test::two_blocks_geo(block_cells));
    const test::CommandResult r = test::run_gpufem("mesh-info " + geo.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("128 hexahedra"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("nodes               225"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("left_block   64 cells"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("outlet       16 facets"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Jacobian ratio    min 1, max 1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("every cell has a positive Jacobian"), std::string::npos) << r.output;
}

TEST(MeshInfo, JsonHoldsTheSameFacts)
{
    const test::TempDir dir;
    const fs::path geo = dir.write("blocks.geo", test::two_blocks_geo(block_cells));
    const nlohmann::json s = nlohmann::json::parse(gpufem_stdout("mesh-info --json " + geo.string()));
    const int n = block_cells;
    EXPECT_EQ(s["file"], geo.string());
    EXPECT_EQ(s["dimension"], 3);
    EXPECT_EQ(s["cells"], 2 * n * n * n);
    EXPECT_EQ(s["cell_types"]["hexahedron"], 2 * n * n * n);
    EXPECT_EQ(s["nodes"], (2 * n + 1) * (n + 1) * (n + 1));
    EXPECT_EQ(s["geometry_order"], 1);
    EXPECT_EQ(s["bounding_box"]["min"], nlohmann::json({0.0, 0.0, 0.0}));
    EXPECT_EQ(s["bounding_box"]["max"], nlohmann::json({2.0, 1.0, 1.0}));
    ASSERT_EQ(s["groups"].size(), 4u);
    for (const char* block : {"left_block", "right_block"}) {
        const nlohmann::json g = json_group(s, block);
        ASSERT_FALSE(g.is_null()) << block;
        EXPECT_EQ(g["size"], n * n * n);
        EXPECT_EQ(g["dim"], 3);
        EXPECT_EQ(g["kind"], "region");
    }
    for (const char* side : {"inlet", "outlet"}) {
        const nlohmann::json g = json_group(s, side);
        ASSERT_FALSE(g.is_null()) << side;
        EXPECT_EQ(g["size"], n * n);
        EXPECT_EQ(g["dim"], 2);
        EXPECT_EQ(g["kind"], "boundary");
    }
    EXPECT_NEAR(s["quality"]["jacobian_ratio"]["min"].get<double>(), 1.0, 1e-12);
    EXPECT_EQ(s["quality"]["non_positive_jacobian"]["cells"], 0);
}

TEST(MeshInfo, InvertedCellIsCountedAndNamed)
{
    const test::TempDir dir;
    const fs::path msh = dir.write("inverted.msh", test::inverted_tetrahedron_msh());
    const nlohmann::json s = nlohmann::json::parse(gpufem_stdout("mesh-info --json " + msh.string()));
    const nlohmann::json& bad = s["quality"]["non_positive_jacobian"];
    EXPECT_EQ(bad["cells"], 1);
    ASSERT_EQ(bad["first"].size(), 1u);
    EXPECT_EQ(bad["first"][0]["cell"], 1);
    EXPECT_EQ(s["quality"]["jacobian_ratio"]["min"], -1.0);
    EXPECT_TRUE(s["quality"].contains("tetrahedron_dihedral_angles"));
    const test::CommandResult text = test::run_gpufem("mesh-info " + msh.string());
    EXPECT_EQ(text.exit_code, 0) << text.output;
    EXPECT_NE(text.output.find("1 cell has a non-positive Jacobian"), std::string::npos) << text.output;
    EXPECT_NE(text.output.find("cell 1 (counted from 0; nodes at (0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, -1))"),
              std::string::npos)
        << text.output;
}

TEST(NewCase, WrittenCaseRunsAndNamesTheMeshRelativeToItself)
{
    const test::TempDir dir;
    dir.write("blocks.geo", test::two_blocks_geo(block_cells));
    const test::CommandResult made = test::run_command("cd " + dir.path().string() + " && " + test::gpufem_command() +
                                                       " new-case blocks.geo -o cases/blocks.yaml");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const std::string text = read_text(dir.path() / "cases" / "blocks.yaml");
    EXPECT_NE(text.find("geo: ../blocks.geo"), std::string::npos) << text;
    EXPECT_NE(text.find("    left_block: 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("    right_block: 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("    inlet: 0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  #   outlet: {h: 10, u_inf: 0}"), std::string::npos) << text;
    EXPECT_NE(text.find("preconditioner: amg"), std::string::npos) << text;
    const fs::path out = dir.path() / "out";
    const test::CommandResult run =
        test::run_gpufem("run " + (dir.path() / "cases" / "blocks.yaml").string() + " --backend cpu -q -o " + out.string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(fs::exists(out / "report.json"));
    EXPECT_EQ(test::read_json(out / "report.json")["mesh"]["cells"], 2 * block_cells * block_cells * block_cells);
}

TEST(NewCase, ShippedTutorialGeometryToStandardOutputRuns)
{
    const std::string geo = std::string(GPUFEM_SOURCE_DIR) + "/cases/meshes/plate_with_insert.geo";
    const std::string text = gpufem_stdout("new-case " + geo);
    EXPECT_NE(text.find("geo: " + geo), std::string::npos) << text;
    EXPECT_NE(text.find("    aluminium: 1\n    copper: 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("    heated: 0\n"), std::string::npos) << text;
    const test::TempDir dir;
    const fs::path file = dir.write("plate.yaml", text);
    const test::CommandResult run =
        test::run_gpufem("run " + file.string() + " --backend cpu -q -o " + (dir.path() / "out").string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(fs::exists(dir.path() / "out" / "report.json"));
}

TEST(NewCase, MeshWithoutBoundaryGroupsGetsAReactionTermAndRuns)
{
    const test::TempDir dir;
    const fs::path geo = dir.write("square.geo", "SetFactory(\"OpenCASCADE\");\nRectangle(1) = {0, 0, 0, 1, 1};\n"
                                                 "Physical Surface(\"plate\") = {1};\nMesh.MeshSizeMax = 0.2;\n");
    const fs::path file = dir.path() / "square.yaml";
    ASSERT_EQ(test::run_gpufem("new-case " + geo.string() + " -o " + file.string()).exit_code, 0);
    const std::string text = read_text(file);
    EXPECT_NE(text.find("  c: 1"), std::string::npos) << text;
    EXPECT_EQ(text.find("dirichlet:"), std::string::npos) << text;
    const test::CommandResult run =
        test::run_gpufem("run " + file.string() + " --backend cpu -q -o " + (dir.path() / "out").string());
    EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(NewCase, RefusesToOverwriteWithoutForce)
{
    const test::TempDir dir;
    const fs::path geo = dir.write("blocks.geo", test::two_blocks_geo(2));
    const fs::path file = dir.write("case.yaml", "mine\n");
    const test::CommandResult refused = test::run_gpufem("new-case " + geo.string() + " -o " + file.string());
    EXPECT_EQ(refused.exit_code, 1) << refused.output;
    EXPECT_NE(refused.output.find("'" + file.string() + "' exists"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("--force"), std::string::npos) << refused.output;
    EXPECT_EQ(read_text(file), "mine\n");
    const test::CommandResult forced = test::run_gpufem("new-case " + geo.string() + " -o " + file.string() + " --force");
    EXPECT_EQ(forced.exit_code, 0) << forced.output;
    EXPECT_NE(read_text(file).find("left_block: 1"), std::string::npos);
}

TEST(MeshCommands, BadInputExitsWithOneNamingTheFile)
{
    const test::TempDir dir;
    const fs::path truncated =
        dir.write("truncated.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n");
    const fs::path script = dir.write("script.msh", "Point(1) = {0, 0, 0};\n");
    const fs::path broken_geo = dir.write("broken.geo", "Point(1) = {0, 0;\n");
    for (const fs::path& file : {dir.path() / "missing.msh", truncated, script, broken_geo})
        for (const std::string command : {"mesh-info ", "mesh-info --json ", "new-case "}) {
            SCOPED_TRACE(command + file.string());
            const test::CommandResult r = test::run_gpufem(command + file.string());
            EXPECT_EQ(r.exit_code, 1) << r.output;
            EXPECT_NE(r.output.find("gpufem: error: "), std::string::npos) << r.output;
            EXPECT_NE(r.output.find("'" + file.string() + "'"), std::string::npos) << r.output;
        }
}

TEST(MeshCommands, GeoThatRunsAProgramIsRefusedByTheGuardAndTheSandbox)
{
    const test::TempDir dir;
    const fs::path marker = dir.path() / "marker";
    const fs::path geo =
        dir.write("hostile.geo", "SetFactory(\"OpenCASCADE\");\nRectangle(1) = {0, 0, 0, 1, 1};\nSystem \"touch " +
                                     marker.string() + "\";\n");
    const test::CommandResult guarded = test::run_gpufem("mesh-info " + geo.string());
    EXPECT_EQ(guarded.exit_code, 1) << guarded.output;
    EXPECT_NE(guarded.output.find("'System' is refused"), std::string::npos) << guarded.output;
    // Past the friendly check, the worker's sandbox stops the program's start.
    for (const std::string command : {"mesh-info ", "new-case "}) {
        const test::CommandResult r =
            test::run_command("GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD=1 " + test::gpufem_command() + " " + command + geo.string());
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find("sandbox forbids"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("'" + geo.string() + "'"), std::string::npos) << r.output;
    }
    EXPECT_FALSE(fs::exists(marker));
}

TEST(CaseSkeleton, GroupNamesAreQuotedWhereYamlNeedsIt)
{
    EXPECT_EQ(yaml_scalar("left_block"), "left_block");
    EXPECT_EQ(yaml_scalar("../meshes/a.geo"), "../meshes/a.geo");
    EXPECT_EQ(yaml_scalar("hot pipe"), "\"hot pipe\"");
    EXPECT_EQ(yaml_scalar("yes"), "\"yes\"");
    EXPECT_EQ(yaml_scalar("5"), "\"5\"");
    EXPECT_EQ(yaml_scalar("a\"b"), "\"a\\\"b\"");
    MeshSummary summary;
    summary.dim = 2;
    summary.cell_types = {{ElementType::triangle, 10}};
    summary.groups = {{"steel: hard", 2, 1, 6, true}, {"no", 2, 2, 4, true}, {"hot pipe", 1, 3, 5, false},
                      {"5", 1, 4, 5, false}};
    const YAML::Node yaml = YAML::Load(case_skeleton({"file", "my mesh.msh"}, summary));
    EXPECT_EQ(yaml["mesh"]["file"].as<std::string>(), "my mesh.msh");
    EXPECT_EQ(yaml["problem"]["kappa"]["steel: hard"].as<double>(), 1.0);
    EXPECT_EQ(yaml["problem"]["kappa"]["no"].as<double>(), 1.0);
    EXPECT_EQ(yaml["problem"]["dirichlet"]["hot pipe"].as<double>(), 0.0);
    EXPECT_EQ(yaml["problem"]["dirichlet"].size(), 1u);
    EXPECT_EQ(yaml["degree"].as<int>(), 1);
    EXPECT_EQ(yaml["solver"]["preconditioner"].as<std::string>(), "amg");
}

}  // namespace
