#include "solver/run/distributed_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/lagrange_discretisation.hpp"
#include "assembly/operator_levels.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/mesh_partition.hpp"
#include "mesh/pvtu_writer.hpp"
#include "mesh/vtk_writer.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"
#include "solver/run/distributed_report.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/format_choice.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/solve_run.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Rank 0's mesh, partitioned, with each rank's part as a message.
struct Partitioned {
    CaseMesh whole;
    CellPartition partition;
    std::vector<std::vector<std::byte>> messages;
};

/// Rank 0: the case's mesh loaded (and checked), its cells partitioned among the ranks, each
/// rank's part, numbering and halo packed.
Partitioned partition_case(const CaseSpec& spec, const ExecPtr& exec, int ranks, RankPhases& phases)
{
    Partitioned out{load_case_mesh(spec, exec), {}, {}};
    phases.mesh = out.whole.seconds;
    const auto start = clock_type::now();
    const Mesh& mesh = out.whole.mesh;
    out.partition = partition_cells(mesh, ranks);
    const std::vector<int> owners = node_owners(mesh, out.partition);
    std::vector<PartNumbering> numbering;
    for (int p = 0; p < ranks; ++p) numbering.push_back(part_node_numbering(mesh, out.partition, owners, p));
    std::vector<HaloPlan> plans = halo_plans(numbering);
    for (int p = 0; p < ranks; ++p) {
        const auto r = static_cast<std::size_t>(p);
        PartPayload payload{part_mesh(mesh, out.partition, owners, numbering[r]), std::move(numbering[r]),
                            std::move(plans[r])};
        out.messages.push_back(pack_part(payload));
    }
    phases.partition = seconds_since(start);
    spdlog::info("partitioned {} cells into {} parts ({}): {}imbalance {:.3f} ({:.3f} s)", mesh.num_cells(), ranks,
                 out.partition.method,
                 out.partition.edge_cut >= 0 ? fmt::format("{} faces cut, ", out.partition.edge_cut) : "",
                 out.partition.imbalance(), phases.partition);
    return out;
}

/// Every rank's part: rank 0 partitions (a failure there, such as bad input, is reported to
/// every rank before anything is sent) and sends each rank its own.
PartPayload receive_part(const CaseSpec& spec, const RankGroup& group, std::optional<Partitioned>& whole,
                         RankPhases& phases)
{
    std::exception_ptr failure;
    if (group.host.rank() == 0) {
        try {
            whole.emplace(partition_case(spec, group.exec, group.host.size(), phases));
        } catch (...) {
            failure = std::current_exception();
        }
    }
    if (any_rank(group.host, failure != nullptr)) {
        if (!failure) throw StoppedOnEveryRank("rank 0 stopped the run", false);
        try {
            std::rethrow_exception(failure);
        } catch (const std::exception& e) {
            throw StoppedOnEveryRank(e.what(), true);
        }
    }
    const auto start = clock_type::now();
    std::vector<std::vector<std::byte>> messages;
    if (whole) messages = std::move(whole->messages);
    const std::vector<std::byte> mine = scatter_from_root(group.host, std::move(messages));
    PartPayload part = unpack_part(mine);
    phases.scatter = seconds_since(start);
    return part;
}

/// The preconditioner of the case on the distributed operator (one that works across ranks).
template <typename V>
SetUpPreconditioner<V> distributed_preconditioner(const CaseSpec& spec, const DistributedSystem<V>& system)
{
    static const Array<index_type> no_permutation;
    return spec.solver.preconditioner->build(
        PreconditionerSetup<V>{*system.op, nullptr, nullptr, no_permutation, false, spec.solver});
}

/// The solve of the rank's rows with the others', timed; x: the solution (operator order).
template <typename V>
SolveResult solve_across_ranks(const CaseSpec& spec, const DistributedSystem<V>& system, const RankGroup& group,
                               Array<V>& x, RankPhases& phases)
{
    auto start = clock_type::now();
    const SetUpPreconditioner<V> m = distributed_preconditioner(spec, system);
    phases.setup = seconds_since(start);
    start = clock_type::now();
    x = system.initial_guess.clone_to(group.exec);
    SolveResult result = solve(spec.solver.method, spec.solver.variant, *system.op, system.rhs, x,
                               solve_options(spec.solver), m.preconditioner.get(), group.device);
    check_true_residual(*system.op, system.rhs, x, spec.solver.tolerance, result, group.device);
    phases.solve = seconds_since(start);
    return result;
}

/// This rank's values of every node it holds (owned and ghosts, part order), on the host.
template <typename V>
HostVector<double> values_with_ghosts(const DistributedSystem<V>& system, const PartPayload& part,
                                      const RankGroup& group, const Array<V>& x)
{
    const Array<V> owned = in_part_order(system, x);
    Array<V> ghosts(group.exec, static_cast<std::size_t>(part.halo.ghosts()));
    const HaloExchange<V> halo(part.halo, group.exec, group.device);
    halo.update(owned, ghosts);
    const std::vector<V> a = owned.to_host(), b = ghosts.to_host();
    HostVector<double> out(a.size() + b.size());
    std::copy(a.begin(), a.end(), out.begin());
    std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(a.size()));
    return out;
}

/// The rank's piece: its own cells with u (and, with an exact solution, u_exact and the
/// error) and the rank as a cell field, written to result_<rank>.vtu (staged) unless the case
/// writes no solution. Returns the
/// piece's error norms (their squares summed over ranks by the caller).
SolutionOutput write_piece(const CaseSpec& spec, const PartPayload& part, const RankGroup& group,
                           const HostVector<double>& local, StagedOutputs& outputs)
{
    const OwnPiece piece = own_piece(part.part);
    std::vector<double> u(piece.nodes.size());
    for (std::size_t k = 0; k < u.size(); ++k) u[k] = local[static_cast<std::size_t>(piece.nodes[k])];
    const LagrangeDiscretisation<double> disc(piece.mesh, spec.problem);
    SolutionOutput out = disc.solution_output(Array<double>::from_host(group.exec, u));
    HostVector<double> rank(static_cast<std::size_t>(part.part.own_cells), static_cast<double>(group.host.rank()));
    out.cell_fields.emplace_back("rank", std::move(rank));
    if (spec.output.write_solution)
        write_vtu(outputs.stage(piece_file_name(group.host.rank())), piece.mesh, out.point_fields,
                  out.cell_fields, spec.output.compression);
    return out;
}

/// The run's output once every piece is written: result.pvtu, report.json and
/// spmv_timings.csv (rank 0), all renamed into place after every rank's piece is.
void finish_outputs(const CaseSpec& spec, const RankGroup& group, const SolutionOutput& piece,
                    StagedOutputs& pieces, const DistributedAccount& account)
{
    if (any_rank(group.host, false)) return;  // every rank's piece is staged
    pieces.commit();
    any_rank(group.host, false);  // and renamed into place
    if (group.host.rank() != 0) return;
    StagedOutputs outputs(pieces.dir());
    std::vector<std::string> files, point_names, cell_names;
    for (int r = 0; r < group.host.size(); ++r) files.push_back(piece_file_name(r));
    for (const MeshField& f : piece.point_fields) point_names.push_back(f.name);
    for (const MeshField& f : piece.cell_fields) cell_names.push_back(f.name);
    if (spec.output.write_solution) write_pvtu(outputs.stage("result.pvtu"), files, point_names, cell_names);
    outputs.write_text("spmv_timings.csv", make_spmv_csv(account.record));
    outputs.write_text("report.json", make_distributed_report(spec, account).dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote {}report.json, spmv_timings.csv to {}",
                 spec.output.write_solution ? fmt::format("result.pvtu ({} pieces), ", files.size()) : "",
                 outputs.dir().string());
}

template <typename V>
RunRecord run_ranks(const CaseSpec& spec, const RunOptions& options, const RankGroup& group)
{
    DistributedAccount account;
    RankPhases& phases = account.mine;
    phases.startup = seconds_since(options.started);
    std::optional<Partitioned> whole;
    const PartPayload part = receive_part(spec, group, whole, phases);
    DistributedSystem<V> system = build_distributed_system<V>(group.exec, part, spec, group.device);
    phases.assembly = system.assembly_times.total();
    phases.operator_build = system.operator_seconds;
    Array<V> x;
    account.record.solve = solve_across_ranks(spec, system, group, x, phases);
    const auto start = clock_type::now();
    const HostVector<double> local = values_with_ghosts(system, part, group, x);
    StagedOutputs pieces(output_folder(spec, options));
    const SolutionOutput piece = write_piece(spec, part, group, local, pieces);
    phases.output = seconds_since(start);
    account_for_ranks(spec, group, part, system, whole ? &whole->whole.mesh : nullptr,
                      whole ? &whole->partition : nullptr, piece, options, account);
    finish_outputs(spec, group, piece, pieces, account);
    return account.record;
}

}  // namespace

void check_distributed_case(const CaseSpec& spec, const RunOptions& options)
{
    const auto refuse = [](const std::string& what) {
        throw std::invalid_argument(what + " (under mpirun with more than one rank)");
    };
    if (spec.matrix) refuse("matrix: a Matrix Market system is solved on one rank only");
    if (spec.discretisation != DiscretisationKind::fe) refuse("discretisation: fv runs on one rank only");
    if (spec.format == auto_format_name) refuse("format: auto is not chosen across ranks; name a format");
    if (find_operator(spec.format).matrix_free()) refuse("format " + spec.format + ": element matrices run on one rank only; use an assembled format");
    if (!spec.solver.preconditioner->across_ranks)
        refuse("solver.preconditioner " + spec.solver.preconditioner->name +
               ": only jacobi or none work across ranks so far");
    if (!options.export_matrix_dir.empty()) refuse("--export-matrix writes one rank's system only");
}

RunRecord run_distributed_case(const CaseSpec& spec, const RunOptions& options, const RankGroup& group)
{
    check_distributed_case(spec, options);
    return spec.precision == Precision::float32 ? run_ranks<float>(spec, options, group)
                                                : run_ranks<double>(spec, options, group);
}

}  // namespace gpufem
