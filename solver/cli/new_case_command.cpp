// `gpufem new-case`: a commented case file for a mesh, ready to edit and run; Gmsh reads the
// mesh in the sandboxed mesh worker to find its groups.
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "mesh/mesh_summary.hpp"
#include "solver/case/case_skeleton.hpp"
#include "solver/cli/command.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// What `gpufem new-case` was given.
struct NewCaseArguments {
    std::string file;
    std::string output;  ///< "" = standard output
    bool force = false;
};

/// The mesh as the case names it, geo for a .geo script: an absolute path as given, a relative
/// one made relative to the case file's folder (the current folder when the case goes to
/// standard output).
SkeletonMesh skeleton_mesh(const NewCaseArguments& args)
{
    const MeshSpec spec = mesh_spec_for_path(args.file);
    SkeletonMesh mesh{spec.kind == MeshSpec::Kind::geo ? "geo" : "file", args.file};
    if (!args.output.empty() && fs::path(args.file).is_relative()) {
        const fs::path case_folder = fs::absolute(args.output).parent_path();
        mesh.path = fs::absolute(args.file).lexically_normal().lexically_relative(case_folder.lexically_normal()).string();
        if (mesh.path.empty()) mesh.path = fs::absolute(args.file).string();
    }
    return mesh;
}

/// Writes the case to its file (refusing an existing one without --force) or prints it.
int write_new_case(const NewCaseArguments& args)
{
    if (!args.output.empty() && fs::exists(args.output) && !args.force)
        throw std::runtime_error("'" + args.output + "' exists; give --force to overwrite it");
    const std::string text = case_skeleton(skeleton_mesh(args), summarise_mesh_file(args.file));
    if (args.output.empty()) {
        std::cout << text;
        return exit_ok;
    }
    const fs::path output = fs::absolute(args.output);
    StagedOutputs staged(output.parent_path());
    staged.write_text(output.filename().string(), text);
    staged.commit();
    std::cerr << "gpufem: wrote " << args.output << "; edit it, then: gpufem run " << args.output << "\n";
    return exit_ok;
}

}  // namespace

Command add_new_case_command(CLI::App& app)
{
    return mesh_file_command<NewCaseArguments>(
        app, "new-case",
        "Write a commented case file for a mesh: its regions and boundary groups filled in, ready to edit and run",
        [](CLI::App& command, NewCaseArguments& args) {
            command.add_option("-o,--output", args.output, "Write the case to this file (default: standard output)");
            command.add_flag("--force", args.force, "Overwrite the output file when it exists");
        },
        write_new_case);
}

}  // namespace gpufem
