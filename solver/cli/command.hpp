#pragma once
// The commands of the gpufem program: each registers its subcommand and options with CLI11 and
// returns what runs it; main() only dispatches to the one parsed.
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "solver/case/case_file.hpp"

namespace gpufem {

/// What every command shares: the program's arguments and start, the names --backend takes,
/// and the --backend / --threads values the commands write into.
struct CommandContext {
    char** argv = nullptr;
    std::chrono::steady_clock::time_point started;
    std::vector<std::string> backend_names;  ///< auto, cpu, cuda
    std::string backend;                     ///< --backend ("": the case's)
    int threads = 0;                         ///< --threads (0: the default)
    std::shared_future<void> rank_device;    ///< a rank's GPU being prepared (prepare_rank_device)
    bool mpi_rank = false;                   ///< started by an MPI launcher, MPI initialised
};

/// ensure_passive_thread_wait for the command's process, except in a rank of an MPI run: it
/// has joined the run (MPI_Init), and the program executed again would join it a second time
/// (Open MPI aborts); a rank keeps the OpenMP runtime's default wait policy.
void prefer_passive_thread_wait(const CommandContext& context);

/// A registered command: its CLI11 subcommand and what runs it once parsed (returns the exit
/// code).
struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
    bool host_threads = true;  ///< takes -j/--threads (it runs on the CPU backend's threads)
};

/// "a,b,,c" -> {"a", "b", "c"}: a comma-separated command-line list.
std::vector<std::string> split_list(const std::string& text);

/// The case file read and validated, then --backend applied (when given) over its backend.
CaseSpec parse_with_backend(const std::string& file, const std::vector<std::string>& overrides,
                            const std::string& backend);

/// Whether the case's kernels run on the CPU backend (auto: when no CUDA device is visible).
/// Only such runs re-execute gpufem for passively waiting OpenMP threads
/// (ensure_passive_thread_wait): a second load of the program's libraries costs 0.15-0.25 s,
/// a loss to a GPU run, whose host threads mostly wait for the device anyway.
bool solves_on_cpu(const CaseSpec& spec);

/// body(), with any exception reported as "gpufem: error: ..." and exit code 1.
int run_reporting_errors(const std::function<int()>& body);

/// What `gpufem run` passes a run on several ranks.
struct RankRunArguments {
    std::string case_file;
    std::vector<std::string> overrides;
    std::string output_dir;
    std::string export_matrix;
};

/// Whether this process is one of several ranks (started by mpirun or srun with more than one).
bool several_ranks();

/// Called before MPI starts in a process the launcher started: prepares, on a thread, the GPU
/// that a CUDA run of this rank will drive (its number on the node, from the launcher's
/// environment, modulo the node's GPUs), so that the CUDA context is made while MPI starts.
/// Empty when the launcher does not say the node rank or CUDA has no device.
std::shared_future<void> prepare_rank_device();

struct RankGroup;  // solver/run/distributed_run.hpp

/// What a command does on one rank of several: the case (read and checked on every rank) and
/// the rank's group; returns the exit code.
using RankBody = std::function<int(const CaseSpec&, const RankGroup&)>;

/// body as one rank of several: the case read on every rank (args.case_file with
/// args.overrides; refused with one message when a run across ranks cannot do it), the rank's
/// executor (GPU node_rank modulo the node's GPUs, or the host's share of the cores) and
/// communicators (NCCL between GPUs); a failure after the start stops every rank.
int as_rank(const RankRunArguments& args, CommandContext& context, const RankBody& body);

/// `gpufem run` as one rank of several: the case across the ranks, one GPU (or the host's
/// share) each; the exit code, the same on every rank (a failure after the start stops all).
int run_as_rank(const RankRunArguments& args, CommandContext& context);

/// `gpufem run`: a case file end to end (or its sweep, or its dry run).
Command add_run_command(CLI::App& app, CommandContext& context);
/// `gpufem compare`: a field of two result.vtu files.
Command add_compare_command(CLI::App& app);
/// Adds a command that reads a mesh file or a .geo (`name`, with `help`), its required FILE
/// argument written into `file`.
CLI::App* add_mesh_file_command(CLI::App& app, const std::string& name, const std::string& help, std::string& file);

/// A command that reads a mesh file or a .geo: its FILE argument goes to Arguments::file,
/// `options` adds the command's own options, and once parsed `body` runs with the arguments
/// (errors reported as run_reporting_errors does).
template <typename Arguments>
Command mesh_file_command(CLI::App& app, const std::string& name, const std::string& help,
                          const std::function<void(CLI::App&, Arguments&)>& options,
                          const std::function<int(const Arguments&)>& body)
{
    auto args = std::make_shared<Arguments>();
    CLI::App* command = add_mesh_file_command(app, name, help, args->file);
    options(*command, *args);
    return {command, [args, body] { return run_reporting_errors([&] { return body(*args); }); }};
}

/// `gpufem mesh-info`: what a mesh file holds (cells, nodes, groups, quality).
Command add_mesh_info_command(CLI::App& app);
/// `gpufem new-case`: a commented case file for a mesh.
Command add_new_case_command(CLI::App& app);
/// `gpufem report`: the plots and report.md of a run's, a sweep's or a study's folder.
Command add_report_command(CLI::App& app);
/// `gpufem study`: every point of a study file, resumable, with study.json, .csv, .md and plots.
Command add_study_command(CLI::App& app, CommandContext& context);
/// `gpufem bench spmv`, `bench solver` and `bench mtx`, under bench.
std::vector<Command> add_bench_commands(CLI::App& bench, CommandContext& context);

}  // namespace gpufem
