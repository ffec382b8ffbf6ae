// `gpufem run` as one rank of several (mpirun -np N gpufem run case.yaml, N > 1): the rank's
// device from its number on the node, the communicators, the run across ranks, and failures
// that stop every rank instead of leaving them waiting.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/device_preparation.hpp"
#include "linalg/host_threads.hpp"
#include "linalg/mpi_communicator.hpp"
#include "linalg/nccl_communicator.hpp"
#include "linalg/rank_messages.hpp"
#include "solver/cli/command.hpp"
#include "solver/run/distributed_run.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/run_sweep.hpp"

namespace gpufem {
namespace {

/// The rank's executor: GPU node_rank modulo the node's GPUs when the case runs on CUDA, else
/// the host. Either way the host's cores are shared among the node's ranks (unless -j says
/// otherwise): each rank's host work (its part of the mesh, its piece of the output, the
/// staged copies) on every core of the node would oversubscribe them as many times as there
/// are ranks.
ExecPtr rank_executor(const CaseSpec& spec, const MpiCommunicator& world, int threads,
                      const std::shared_future<void>& prepared)
{
    if (prepared.valid()) prepared.wait();
    if (threads == 0) {
        const int cores = static_cast<int>(std::thread::hardware_concurrency());
        set_host_threads(std::max(1, cores / std::max(1, world.node_size())));
    }
    if (uses_cuda(spec.backend)) return Executor::create_cuda(world.node_rank() % Executor::cuda_device_count());
    return make_executor(spec.backend);  // throws for backend cuda without a device
}

/// GPUFEM_DEVICE_COMMUNICATOR: "nccl", "mpi", or "" when unset.
std::string communicator_choice()
{
    const char* choice = std::getenv("GPUFEM_DEVICE_COMMUNICATOR");
    if (!choice) return "";
    if (std::string(choice) == "nccl" || std::string(choice) == "mpi") return choice;
    throw std::invalid_argument("GPUFEM_DEVICE_COMMUNICATOR=" + std::string(choice) + ": expected nccl or mpi");
}

/// Whether the GPUs exchange through NCCL (the default) or through MPI with host staging
/// (GPUFEM_DEVICE_COMMUNICATOR=mpi: to compare the two, or where NCCL cannot run). NCCL needs a
/// GPU per rank: where some node has more ranks than GPUs (a test on a one-GPU machine) every
/// rank goes through MPI, with a warning, or stops when NCCL was asked for by name.
/// Collective: every rank reaches the same answer.
bool use_nccl(const MpiCommunicator& world, const Executor& exec)
{
    const std::string choice = communicator_choice();
    if (!exec.is_cuda() || choice == "mpi") return false;
    const int gpus = Executor::cuda_device_count();
    if (!any_rank(world, world.node_size() > gpus)) return true;
    const std::string why = fmt::format("some node has more ranks than GPUs (this one: {} ranks, {} GPUs) and NCCL "
                                        "needs a GPU per rank", world.node_size(), gpus);
    if (choice == "nccl") throw StoppedOnEveryRank("GPUFEM_DEVICE_COMMUNICATOR=nccl: " + why, world.rank() == 0);
    spdlog::warn("{}: the GPUs' data goes through MPI", why);
    return false;
}

/// The case read and checked on every rank (the same file, the same verdict); only rank 0
/// prints why it is refused.
std::optional<CaseSpec> read_case(const RankRunArguments& args, const MpiCommunicator& world, CommandContext& context)
{
    try {
        CaseSpec spec = parse_with_backend(args.case_file, args.overrides, context.backend);
        RunOptions options;
        options.export_matrix_dir = args.export_matrix;
        check_distributed_case(spec);
        check_export_matrix(spec, options);
        return spec;
    } catch (const std::exception& e) {
        if (world.rank() == 0) std::cerr << "gpufem: error: " << e.what() << "\n";
        return std::nullopt;
    }
}

/// body on this rank's group (its executor; NCCL between GPUs); a failure after the ranks
/// started working together stops them all.
int on_rank_group(const CaseSpec& spec, const MpiCommunicator& world, CommandContext& context, const RankBody& body)
{
    try {
        const ExecPtr exec = rank_executor(spec, world, context.threads, context.rank_device);
        spdlog::info("rank on {} {:.3f} s after the command began", exec->device_name(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - context.started).count());
        std::unique_ptr<NcclCommunicator> nccl;
        if (use_nccl(world, *exec)) nccl = std::make_unique<NcclCommunicator>(world, exec->device_id());
        const RankGroup group{world, nccl ? static_cast<const Communicator&>(*nccl) : world, exec,
                              world.node_size()};
        return body(spec, group);
    } catch (const StoppedOnEveryRank& e) {
        if (e.here()) std::cerr << "gpufem: error: " << e.what() << "\n";
        return exit_error;
    } catch (const std::exception& e) {
        std::cerr << "gpufem: error: rank " << world.rank() << " of " << world.size() << ": " << e.what() << "\n";
        MpiSession::abort_all(exit_error);
    }
}

/// A sweep whose points each run across the ranks: every point's pieces and result.pvtu in
/// its folder, the sweep's table, result.pvd (of the points' result.pvtu), sweep.csv and
/// report.json from rank 0. No memory check before the points: the one-device estimate does
/// not apply to a mesh split among the ranks.
ExitCode sweep_across_ranks(const CaseSpec& spec, RunOptions options, const RankGroup& group)
{
    options.write_outputs = group.host.rank() == 0;  // the sweep's own files; every rank writes its pieces
    options.check_memory = false;
    SweepRunner runner;
    runner.run = [&group](const CaseSpec& point, const RunOptions& point_options, SweepReuse* reuse) {
        if (reuse && !reuse->ranks) reuse->ranks = std::make_shared<RankSweepReuse>();
        return run_distributed_case(point, point_options, group, reuse ? reuse->ranks.get() : nullptr);
    };
    runner.result_file = "result.pvtu";
    const std::vector<SweepRow> rows = run_sweep(spec, options, runner);
    if (group.host.rank() == 0)
        std::cout << "gpufem sweep: " << spec.name << " (" << rows.size() << " runs on " << group.host.size()
                  << " ranks, " << precision_name(spec.precision) << ", " << spec.format << ")\n"
                  << sweep_table(rows);
    for (const SweepRow& row : rows)
        if (!row.record.solve.converged()) return exit_not_converged;
    return exit_ok;
}

}  // namespace

int as_rank(const RankRunArguments& args, CommandContext& context, const RankBody& body)
{
    const MpiCommunicator world;
    // Every rank's debug lines when asked for (SPDLOG_LEVEL=debug: where each rank's time went);
    // otherwise rank 0 speaks for all, the others only of errors.
    if (world.rank() != 0 && spdlog::get_level() > spdlog::level::debug) spdlog::set_level(spdlog::level::err);
    spdlog::set_pattern(fmt::format("[%H:%M:%S.%e] [rank {}] [%^%l%$] %v", world.rank()));
    const std::optional<CaseSpec> spec = read_case(args, world, context);
    if (!spec) return exit_error;
    return on_rank_group(*spec, world, context, body);
}

int run_as_rank(const RankRunArguments& args, CommandContext& context)
{
    return as_rank(args, context, [&](const CaseSpec& spec, const RankGroup& group) {
        RunOptions options;
        options.output_dir = args.output_dir;
        options.export_matrix_dir = args.export_matrix;
        options.started = context.started;
        if (is_sweep(spec)) return sweep_across_ranks(spec, options, group);
        const RunRecord record = run_distributed_case(spec, options, group);
        if (group.host.rank() == 0) std::cout << make_summary(spec, record);
        return record.solve.converged() ? exit_ok : exit_not_converged;
    });
}

std::shared_future<void> prepare_rank_device()
{
    // Open MPI, MPICH and Intel MPI, Slurm.
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
        const char* value = std::getenv(name);
        if (!value) continue;
        const int node_rank = std::atoi(value);
        return std::async(std::launch::async, [node_rank] {
                   const int devices = Executor::cuda_device_count();
                   if (devices > 0) prepare_cuda_device(node_rank % devices);
               }).share();
    }
    return {};
}

bool several_ranks()
{
    return launched_by_mpi() && MpiCommunicator().size() > 1;
}

}  // namespace gpufem
