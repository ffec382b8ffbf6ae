// Mesh input that cannot run code: a "mesh file" without $MeshFormat never reaches Gmsh (the
// System line in it must not run), .geo commands that run programs, write files or end the
// process are refused with their line unless allowed, and allowed ones do run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_input_guard.hpp"
#include "mesh/mesh_source.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

namespace {

/// A fresh folder, removed at the end.
struct Folder {
    fs::path path = fs::temp_directory_path() / ("gpufem-guard-" + std::to_string(std::random_device{}()));
    Folder() { fs::create_directories(path); }
    ~Folder() { fs::remove_all(path); }
    fs::path write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path / name) << text;
        return path / name;
    }
};

std::string error_of(const MeshSpec& spec)
{
    try {
        load_mesh(spec);
    } catch (const MeshSourceError& e) {
        return e.what();
    }
    return "no error";
}

const char* square_geo = R"(h = 0.5;
Point(1) = {0, 0, 0, h}; Point(2) = {1, 0, 0, h}; Point(3) = {1, 1, 0, h}; Point(4) = {0, 1, 0, h};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Physical Curve("boundary") = {1, 2, 3, 4}; Physical Surface("domain") = {1};
)";

}  // namespace

TEST(MeshInputGuard, MeshFileWithoutHeaderIsNeverRunAsAScript)
{
    const Folder folder;
    const fs::path marker = folder.path / "marker";
    const fs::path file = folder.write(
        "evil.msh", "System \"touch " + marker.string() + "\";\nPoint(1) = {0, 0, 0};\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::file;
    spec.path = file.string();
    const std::string message = error_of(spec);
    EXPECT_NE(message.find("first line must be $MeshFormat (found 'System \"touch "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("evil.msh"), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(marker)) << "the System command ran";
    // An empty file and a binary one are named as well.
    folder.write("empty.msh", "");
    spec.path = (folder.path / "empty.msh").string();
    EXPECT_NE(error_of(spec).find("found ''"), std::string::npos);
}

TEST(MeshInputGuard, GeoCommandsAreRefusedWithTheirLine)
{
    const Folder folder;
    const fs::path marker = folder.path / "marker";
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    for (const std::string& command : std::vector<std::string>{
             "System \"touch " + marker.string() + "\";", "SystemCall \"touch x\";",
          "Save \"out.msh\";", "Exit;", "Abort;", "Include \"other.geo\";", "Merge \"m.msh\";"}) {
        SCOPED_TRACE(command);
        spec.path = folder.write("cmd.geo", std::string(square_geo) + "// System in a comment\n" +
                                                "s = \"Exit in a string\";\n/* Save\n */\n" +
                                                command + "\n")
                        .string();
        const std::string message = error_of(spec);
        const std::string word = command.substr(0, command.find_first_of(" ;"));
        EXPECT_NE(message.find("line 10: '" + word + "' is refused"), std::string::npos) << message;
        EXPECT_NE(message.find("mesh.allow_commands: true"), std::string::npos) << message;
        EXPECT_FALSE(fs::exists(marker));
    }
    // Option names that contain a command word are not commands.
    spec.path = folder.write("options.geo", std::string("Mesh.SaveAll = 0;\nGeneral.Terminal = 0;\n") +
                                                square_geo)
                    .string();
    EXPECT_NO_THROW(load_mesh(spec));
}

TEST(MeshInputGuard, CompressedFilesAreNamedAsSuch)
{
    const Folder folder;
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = folder.write("square.geo.gz", "not really gzip").string();
    EXPECT_NE(error_of(spec).find("is compressed (.gz); gpufem reads Gmsh files uncompressed"),
              std::string::npos)
        << error_of(spec);
    spec.kind = MeshSpec::Kind::file;
    spec.path = folder.write("mesh.msh.xz", "x").string();
    EXPECT_NE(error_of(spec).find("is compressed (.xz)"), std::string::npos);
}

TEST(MeshInputGuard, AllowedCommandsRun)
{
    const Folder folder;
    const fs::path marker = folder.path / "marker";
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = folder.write("allowed.geo", std::string(square_geo) + "System \"touch " +
                                                marker.string() + "\";\n")
                    .string();
    spec.allow_commands = true;
    const Mesh mesh = load_mesh(spec);
    EXPECT_GT(mesh.num_cells(), 0);
    EXPECT_TRUE(fs::exists(marker));
}
