// gpufem: the command line. Each command registers itself (solver/cli/); main parses and
// dispatches to the one given.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "linalg/host_threads.hpp"
#include "linalg/mpi_communicator.hpp"
#include "mesh/mesh_worker.hpp"
#include "solver/build_info.hpp"
#include "solver/cli/command.hpp"
#include "solver/cli/prompt_return.hpp"
#include "solver/run/interrupt_cleanup.hpp"
#include "solver/run/run_case.hpp"

namespace {

/// The program that runs Gmsh: gpufem-mesh-worker beside this program (gpufem does not link
/// Gmsh; a missing worker is reported when a mesh needs it).
std::string mesh_worker_program()
{
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return (error ? std::filesystem::path("gpufem-mesh-worker") : self.parent_path() / "gpufem-mesh-worker").string();
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace gpufem;
    CommandContext context;
    context.argv = argv;
    context.started = std::chrono::steady_clock::now();
    // One rank of several (mpirun, srun): MPI for the process's lifetime.
    std::optional<MpiSession> mpi;
    if (launched_by_mpi()) {
        context.rank_device = prepare_rank_device();
        mpi.emplace(argc, argv);
        context.mpi_rank = true;
    }
    install_interrupt_cleanup();
    set_mesh_worker(mesh_worker_program());
    CLI::App app{"gpufem: finite-element Poisson solver for NVIDIA GPUs (CPU fallback).\n"
                 "Solves -div(kappa grad u) = f from a YAML case file and writes result.vtu,\n"
                 "report.json and spmv_timings.csv."};
    app.require_subcommand(1);
    for (const auto& entry : backend_choice_names) context.backend_names.emplace_back(entry.name);
    app.set_version_flag("--version", [] { return version_text(); },
                         "Print the version, the CUDA architectures built, the GPUs and the libraries' versions");

    std::vector<Command> commands{add_run_command(app, context), add_compare_command(app),
                                  add_mesh_info_command(app), add_new_case_command(app),
                                  add_report_command(app), add_study_command(app, context)};
    CLI::App* bench = app.add_subcommand("bench", "Benchmarks on a case's matrix");
    bench->require_subcommand(1);
    for (Command& command : add_bench_commands(*bench, context)) commands.push_back(std::move(command));
    const std::string threads_help =
        "Threads of the CPU backend (default: the CPUs of the process's affinity mask, or "
        "OMP_NUM_THREADS)";
    for (const Command& command : commands)
        if (command.host_threads)
            command.app->add_option("-j,--threads", context.threads, threads_help)->check(CLI::Range(1, 4096));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; a bad command line is an error like any bad input.
        return app.exit(e) == 0 ? exit_ok : exit_error;
    }
    if (context.threads > 0) set_host_threads(context.threads);
    for (const Command& command : commands)
        if (command.app->parsed()) return return_exit_code(command.run());
    return exit_error;
}
