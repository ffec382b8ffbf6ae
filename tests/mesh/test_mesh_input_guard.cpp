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
          "Save \"out.msh\";", "Exit;", "Abort;"}) {
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

TEST(MeshInputGuard, StringsAndCommentsAreLexedAsGmshLexesThem)
{
    // Gmsh's strings have no escapes and may be single-quoted: each line below runs System in
    // Gmsh, and the guard names it (the old lexer saw it inside a string or a comment).
    const Folder folder;
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    for (const std::string& hiding : std::vector<std::string>{
             "s = \"a\\\"; System \"touch x\"; t = \"b\";", "s = 'a\"'; System \"touch x\"; t = '\"';",
             "s = '//'; System \"touch x\";", "s = '/*'; System \"touch x\"; t = '*/';"}) {
        SCOPED_TRACE(hiding);
        spec.path = folder.write("hiding.geo", std::string(square_geo) + hiding + "\n").string();
        EXPECT_NE(error_of(spec).find("line 6: 'System' is refused"), std::string::npos) << error_of(spec);
    }
}

TEST(MeshInputGuard, FileCommandsOptionsAndFormatsAreRefused)
{
    const Folder folder;
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"Printf(\"x\") > \"out.txt\";", "'Printf(...) > FILE'"},
        {"Printf(\"x %g\", 1) >> \"out.txt\";", "'Printf(...) > FILE'"},
        {"General.TmpFileName = \"victim\";", "'TmpFileName' (an option naming a file or program)"},
        {"Print.ParameterCommand = \"x\";", "'ParameterCommand'"},
        {"x() = ListFromFile[\"secret\"];", "'ListFromFile'"},
        {"MergeWithBoundingBox \"a.geo\";", "'MergeWithBoundingBox'"},
        {"StringToName[StrCat(\"Sys\", \"tem\")] \"touch x\";", "'StringToName'"},
        {"Printf(\"%n\", 1);", "a %n format"},
        {"s = '%-08.3n';", "a %n format"},
        {"s = \"" + std::string(1100, 'a') + "\";", "a string longer than Gmsh's 1023 characters"},
        {std::string("s = 1;") + '\0' + "System \"x\";", "a NUL byte"}};
    for (const auto& [line, named] : refused) {
        SCOPED_TRACE(line.substr(0, 60));
        spec.path = folder.write("refused.geo", std::string(square_geo) + line + "\n").string();
        const std::string message = error_of(spec);
        EXPECT_NE(message.find("line 6: " + named), std::string::npos) << message;
        EXPECT_NE(message.find("mesh.allow_commands: true"), std::string::npos) << message;
    }
    // Formats and options that write nothing are accepted.
    spec.path = folder.write("fine.geo", std::string(square_geo) +
                                             "Printf(\"%g done\", 1);\nMesh.SaveAll = 0;\nPrint.Width = 640;\n")
                    .string();
    EXPECT_NO_THROW(load_mesh(spec));
}

TEST(MeshInputGuard, SidecarOptionsFileIsChecked)
{
    // Gmsh merges FILE.opt after FILE as a script: it is checked as one, and merged when fine.
    const Folder folder;
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = folder.write("part.geo", square_geo).string();
    folder.write("part.geo.opt", "Mesh.ElementOrder = 1;\nSystem \"touch x\";\n");
    const std::string message = error_of(spec);
    EXPECT_NE(message.find("options file '" + spec.path + ".opt' (Gmsh reads it after '" + spec.path +
                           "' as a script) line 2: 'System' is refused"),
              std::string::npos)
        << message;
    folder.write("part.geo.opt", "Mesh.ElementOrder = 1;\n");
    EXPECT_NO_THROW(load_mesh(spec));
}

TEST(MeshInputGuard, IncludedAndMergedFilesAreCheckedAndRead)
{
    // Include and Merge of quoted names in the input's folder are read as Gmsh reads them
    // (relative to the file naming them); each file is checked like the input.
    const Folder folder;
    fs::create_directories(folder.path / "parts");
    folder.write("parts/size.geo", "h = 0.25;\n");
    folder.write("parts/square.geo", std::string(square_geo).substr(std::string(square_geo).find('\n') + 1));
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = folder.write("main.geo", "Include \"parts/size.geo\";\nMerge \"parts/square.geo\";\n").string();
    const Mesh fine = load_mesh(spec);
    spec.path = folder.write("coarse.geo", std::string(square_geo)).string();
    EXPECT_GT(fine.num_cells(), 2 * load_mesh(spec).num_cells());  // h = 0.25 from the included file
    // What an included file, or the FILE.opt beside it, says is checked with its line.
    spec.path = (folder.path / "main.geo").string();
    folder.write("parts/size.geo", "h = 0.25;\nSystem \"touch x\";\n");
    std::string message = error_of(spec);
    EXPECT_NE(message.find("file '" + (folder.path / "parts/size.geo").string() + "' (read by '" + spec.path +
                           "' line 1) line 2: 'System' is refused"),
              std::string::npos)
        << message;
    folder.write("parts/size.geo", "h = 0.25;\n");
    folder.write("parts/size.geo.opt", "Exit;\n");
    message = error_of(spec);
    EXPECT_NE(message.find("options file '" + (folder.path / "parts/size.geo.opt").string() + "'"), std::string::npos)
        << message;
    fs::remove(folder.path / "parts/size.geo.opt");
    EXPECT_NO_THROW(load_mesh(spec));
}

TEST(MeshInputGuard, ReadFilesMustBeQuotedPresentAndInTheInputsFolder)
{
    const Folder folder;
    const Folder elsewhere;
    elsewhere.write("other.geo", "h = 0.25;\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"Include \"" + (elsewhere.path / "other.geo").string() + "\";", "lies outside the mesh input's folder"},
        {"Include \"../" + elsewhere.path.filename().string() + "/other.geo\";", "lies outside the mesh input's folder"},
        {"Include StrCat(\"oth\", \"er.geo\");", "Include must name its file by one quoted string"},
        {"Merge \"missing.msh\";", "the file 'missing.msh' it reads does not exist"},
        {"v() = ShapeFromFile(\"part.step\");", "the file 'part.step' it reads does not exist"},
        {"Include \"parts\";", "'parts' is not a regular file"}};
    fs::create_directories(folder.path / "parts");
    for (const auto& [line, named] : refused) {
        SCOPED_TRACE(line);
        spec.path = folder.write("reads.geo", std::string(square_geo) + line + "\n").string();
        const std::string message = error_of(spec);
        EXPECT_NE(message.find("'" + spec.path + "' line 6: "), std::string::npos) << message;
        EXPECT_NE(message.find(named), std::string::npos) << message;
    }
}

TEST(MeshInputGuard, AFileReadAsDataAndAsAScriptIsCheckedAsAScript)
{
    // Merged as CAD data first (in a branch Gmsh never takes), then included as a script: the
    // stricter reading wins and its System is named.
    const Folder folder;
    folder.write("x.step", "System \"touch x\";\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = folder.write("twice.geo", std::string(square_geo) +
                                              "If (0)\n  v() = ShapeFromFile(\"x.step\");\nEndIf\nInclude \"x.step\";\n")
                    .string();
    const std::string message = error_of(spec);
    EXPECT_NE(message.find("x.step' (read by"), std::string::npos) << message;
    EXPECT_NE(message.find("line 1: 'System' is refused"), std::string::npos) << message;
}

TEST(MeshInputGuard, HiddenFilesBackslashesAndOptionsFilesOutsideAreRefused)
{
    const Folder folder;
    const Folder elsewhere;
    fs::create_directories(folder.path / ".private");
    folder.write(".private/a.geo", "h = 0.25;\n");
    folder.write("in.geo", "h = 0.25;\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    for (const auto& [line, named] : std::vector<std::pair<std::string, std::string>>{
             {"Include \".private/a.geo\";", "is a hidden file or lies in a hidden folder ('.private')"},
             {"Include \"sub\\\\in.geo\";", "a file name with '\\' or a drive letter is refused"},
             {"Include \"C:/in.geo\";", "a file name with '\\' or a drive letter is refused"}}) {
        SCOPED_TRACE(line);
        spec.path = folder.write("reads.geo", std::string(square_geo) + line + "\n").string();
        const std::string message = error_of(spec);
        EXPECT_NE(message.find("line 6: "), std::string::npos) << message;
        EXPECT_NE(message.find(named), std::string::npos) << message;
    }
    // An included file's FILE.opt that links outside the folder.
    const fs::path outside = elsewhere.write("outside.opt", "Mesh.ElementOrder = 1;\n");
    fs::create_symlink(outside, folder.path / "in.geo.opt");
    spec.path = folder.write("reads.geo", std::string(square_geo) + "Include \"in.geo\";\n").string();
    const std::string message = error_of(spec);
    EXPECT_NE(message.find("lies outside the mesh input's folder"), std::string::npos) << message;
}
