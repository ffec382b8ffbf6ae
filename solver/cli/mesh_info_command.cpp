// `gpufem mesh-info`: what a mesh file holds (cells, nodes, groups, quality), for a user
// starting from their own mesh; Gmsh reads it in the sandboxed mesh worker.
#include <iostream>

#include "mesh/mesh_summary.hpp"
#include "solver/cli/command.hpp"
#include "solver/report/mesh_summary_output.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// What `gpufem mesh-info` was given.
struct MeshInfoArguments {
    std::string file;
    bool json = false;
};

/// Prints the summary of the file as text or JSON.
int print_mesh_info(const MeshInfoArguments& args)
{
    const MeshSummary summary = summarise_mesh_file(args.file);
    if (args.json)
        std::cout << mesh_summary_json(args.file, summary).dump(2) << "\n";
    else
        std::cout << mesh_summary_text(args.file, summary);
    return exit_ok;
}

}  // namespace

Command add_mesh_info_command(CLI::App& app)
{
    return mesh_file_command<MeshInfoArguments>(
        app, "mesh-info",
        "What a mesh holds: cells by type, nodes, geometric order, bounding box, physical groups with their sizes, "
        "and the cells' quality (Jacobian ratio, angles, inverted cells)",
        [](CLI::App& command, MeshInfoArguments& args) {
            command.add_flag("--json", args.json, "Print the same as JSON, for scripts");
        },
        print_mesh_info);
}

}  // namespace gpufem
