#include "solver/cli/command.hpp"

#include <iostream>
#include <sstream>

#include "linalg/host_threads.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {

std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

CaseSpec parse_with_backend(const std::string& file, const std::vector<std::string>& overrides,
                            const std::string& backend)
{
    CaseSpec spec = parse_case_file(file, overrides);
    if (!backend.empty()) set_backend(spec, parse_enum(backend_choice_names, backend, "backend"));
    return spec;
}

bool solves_on_cpu(const CaseSpec& spec)
{
    // A cuda backend without a device is an error later, not a CPU run.
    return spec.backend != BackendChoice::cuda && !uses_cuda(spec.backend);
}

CLI::App* add_mesh_file_command(CLI::App& app, const std::string& name, const std::string& help, std::string& file)
{
    CLI::App* command = app.add_subcommand(name, help);
    command->add_option("file", file, "A Gmsh mesh file (.msh) or a Gmsh script (.geo, meshed as gpufem run meshes it)")
        ->required();
    return command;
}

int run_reporting_errors(const std::function<int()>& body)
{
    try {
        return body();
    } catch (const std::exception& e) {
        std::cerr << "gpufem: error: " << e.what() << "\n";
        return exit_error;
    }
}

void prefer_passive_thread_wait(const CommandContext& context)
{
    if (!context.mpi_rank) ensure_passive_thread_wait(context.argv);
}

}  // namespace gpufem
