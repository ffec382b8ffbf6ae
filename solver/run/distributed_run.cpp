#include "solver/run/distributed_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <numeric>
#include <span>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/boundary_conditions.hpp"
#include "assembly/fv_part.hpp"
#include "assembly/grid_part.hpp"
#include "assembly/lagrange_discretisation.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/operator_levels.hpp"
#include "linalg/device_runtime.hpp"
#include "linalg/halo.hpp"
#include "linalg/matrix_market.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/grid_blocks.hpp"
#include "mesh/mesh_partition.hpp"
#include "mesh/shape_grid.hpp"
#include "mesh/pvtu_writer.hpp"
#include "mesh/gll_output.hpp"
#include "mesh/vtk_writer.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"
#include "solver/run/distributed_fv.hpp"
#include "solver/run/distributed_report.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/format_choice.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/part_fluxes.hpp"
#include "solver/run/part_spaces.hpp"
#include "solver/run/matrix_rows.hpp"
#include "solver/run/rank_export.hpp"
#include "solver/run/rank_preconditioner.hpp"
#include "solver/run/refined_parts.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/solve_run.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// The log line of a partition.
void log_partition(const CellPartition& partition, double seconds)
{
    spdlog::info("partitioned {} cells into {} parts ({}): {}imbalance {:.3f} ({:.3f} s)",
                 std::accumulate(partition.cells_per_part.begin(), partition.cells_per_part.end(), 0LL),
                 partition.parts, partition.method,
                 partition.edge_cut >= 0 ? fmt::format("{} faces cut, ", partition.edge_cut) : "",
                 partition.imbalance(), seconds);
}

/// Rank 0's facts of the whole mesh and its partition, with each rank's part as a message.
struct Partitioned {
    WholeMeshFacts facts;
    std::vector<std::vector<std::byte>> messages;
    bool coarse = false;  ///< the messages are coarse layers each rank refines (refined_parts.hpp)
};

/// The partition of a coarse mesh whose ranks refine their parts: its facts scaled to the
/// refined mesh's cells, and each rank's coarse cells.
Partitioned partition_coarse(const CaseSpec& spec, const Mesh& coarse, int ranks)
{
    const CellPartition partition = partition_cells(coarse, ranks);
    Partitioned out{whole_mesh_facts(coarse, partition), coarse_layers(coarse, partition), true};
    const long long children = std::llround(std::pow(coarse.dim == 3 ? 8.0 : 4.0, spec.mesh.refine));
    out.facts.num_cells *= children;
    for (index_type& cells : out.facts.partition.cells_per_part) cells = static_cast<index_type>(cells * children);
    if (out.facts.partition.edge_cut > 0)
        out.facts.partition.edge_cut *= std::llround(std::pow(coarse.dim == 3 ? 4.0 : 2.0, spec.mesh.refine));
    out.facts.partition.method += fmt::format(", of the {} coarse cells, each rank refining its own", coarse.num_cells());
    return out;
}

/// Rank 0: the case's mesh loaded (and checked), its cells partitioned among the ranks, each
/// rank's part, numbering and halo packed.
/// The shares of a finite-volume case's mesh (assembly/fv_part.hpp), packed for each rank.
Partitioned partition_fv_mesh(const Mesh& mesh, const ExecPtr& exec, int ranks)
{
    auto start = clock_type::now();
    const CellPartition partition = partition_cells(mesh, ranks);
    const double partitioned = seconds_since(start);
    start = clock_type::now();
    Partitioned out{whole_mesh_facts(mesh, partition), {}};
    const FvWholeFaces faces = fv_whole_faces(mesh, exec);
    const double adjacency = seconds_since(start);
    start = clock_type::now();
    // Each share is cut by all the host's threads (its loops run over the whole mesh), one
    // share after the other; then packed on the host's threads, one share each.
    std::vector<FvPart> shares(static_cast<std::size_t>(ranks));
    std::vector<PartNumbering> numbering(shares.size());
    for (int p = 0; p < ranks; ++p) {
        shares[static_cast<std::size_t>(p)] = fv_part(mesh, faces, partition, p);
        numbering[static_cast<std::size_t>(p)] = shares[static_cast<std::size_t>(p)].numbering;
    }
    const double cut = seconds_since(start);
    start = clock_type::now();
    std::vector<HaloPlan> plans = halo_plans(numbering);
    out.messages.resize(shares.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (int p = 0; p < ranks; ++p) {
        const auto r = static_cast<std::size_t>(p);
        PartPayload payload{std::move(shares[r].part), std::move(shares[r].numbering), std::move(plans[r])};
        out.messages[r] = pack_part(payload);
    }
    spdlog::info("finite-volume shares: partition {:.3f} s, the whole mesh's faces {:.3f} s, the shares cut {:.3f} s, "
                 "halos and messages {:.3f} s", partitioned, adjacency, cut, seconds_since(start));
    return out;
}

Partitioned partition_case(const CaseSpec& spec, const ExecPtr& exec, int ranks, RankPhases& phases)
{
    const bool fv = spec.discretisation == DiscretisationKind::fv;
    const bool by_parts = !fv && refined_by_parts(spec.mesh);
    CaseMesh whole = load_case_mesh(spec, exec, MeshCopy::host_only, by_parts ? MeshStage::coarse : MeshStage::finished);
    if (by_parts && !refines_parent_by_parent(whole.mesh)) {
        // Prisms, pyramids and mixed meshes: refined here, then cut as any other mesh.
        whole.mesh = finish_gmsh_mesh(std::move(whole.mesh), spec.mesh, exec);
        whole.seconds += whole.mesh.build_times.refinement;
    }
    phases.mesh = whole.seconds;
    const auto start = clock_type::now();
    const Mesh& mesh = whole.mesh;
    check_boundary_groups(mesh, spec.problem);
    if (by_parts && refines_parent_by_parent(mesh)) {
        Partitioned out = partition_coarse(spec, mesh, ranks);
        out.facts.cache = whole.cache;
        phases.partition = seconds_since(start);
        log_partition(out.facts.partition, phases.partition);
        return out;
    }
    if (fv) {
        Partitioned out = partition_fv_mesh(mesh, exec, ranks);
        out.facts.cache = whole.cache;
        phases.partition = seconds_since(start);
        log_partition(out.facts.partition, phases.partition);
        return out;
    }
    const CellPartition partition = partition_cells(mesh, ranks);
    Partitioned out{whole_mesh_facts(mesh, partition), {}};
    out.facts.cache = whole.cache;
    const std::vector<int> owners = node_owners(mesh, partition);
    std::vector<PartNumbering> numbering;
    for (int p = 0; p < ranks; ++p) numbering.push_back(part_node_numbering(mesh, partition, owners, p));
    std::vector<HaloPlan> plans = halo_plans(numbering);
    for (int p = 0; p < ranks; ++p) {
        const auto r = static_cast<std::size_t>(p);
        PartPayload payload{part_mesh(mesh, partition, owners, numbering[r]), std::move(numbering[r]),
                            std::move(plans[r])};
        out.messages.push_back(pack_part(payload));
    }
    phases.partition = seconds_since(start);
    log_partition(out.facts.partition, phases.partition);
    return out;
}

/// This rank's part of the refined mesh from its coarse cells (refined_parts.hpp); a failure
/// on any rank (a mesh too large for its memory) stops every rank. Rank 0's facts get the
/// refined mesh's nodes.
PartPayload refine_own_part(const CaseSpec& spec, const RankGroup& group, const CoarseLayer& layer,
                            std::optional<WholeMeshFacts>& facts, RankPhases& phases)
{
    std::exception_ptr failure;
    PartPayload part;
    double refining = 0;
    const auto start = clock_type::now();
    try {
        part = refined_part(layer, spec.mesh, group.exec, group.host, refining);
    } catch (...) {
        failure = std::current_exception();
    }
    stop_if_any_failed(group.host, failure);
    phases.mesh += refining;
    phases.partition += seconds_since(start) - refining;
    const double owned = part.numbering.layout.owned;
    const std::vector<double> all = gather_on_every_rank(group.host, std::span<const double>(&owned, 1));
    if (facts) {
        facts->num_nodes = std::llround(std::accumulate(all.begin(), all.end(), 0.0));
        facts->build_times.refinement = refining;
    }
    spdlog::info("refined the part: {} cells, {} owned nodes ({:.3f} s)", part.part.own_cells, owned, refining);
    return part;
}

/// Every rank's part, cut by rank 0 from the whole mesh (a failure there, such as bad input,
/// is reported to every rank before anything is sent) and sent to each rank.
PartPayload receive_part(const CaseSpec& spec, const RankGroup& group, std::optional<WholeMeshFacts>& facts,
                         RankPhases& phases)
{
    std::exception_ptr failure;
    std::optional<Partitioned> whole;
    if (group.host.rank() == 0) {
        try {
            whole.emplace(partition_case(spec, group.exec, group.host.size(), phases));
        } catch (...) {
            failure = std::current_exception();
        }
    }
    stop_if_any_failed(group.host, failure);
    const auto start = clock_type::now();
    std::vector<std::vector<std::byte>> messages;
    const bool coarse = any_rank(group.host, whole && whole->coarse);
    if (whole) {
        messages = std::move(whole->messages);
        facts = std::move(whole->facts);
    }
    const std::vector<std::byte> mine = scatter_from_root(group.host, std::move(messages));
    phases.scatter = seconds_since(start);
    if (!coarse) return unpack_part(mine);
    return refine_own_part(spec, group, unpack_coarse_layer(mine), facts, phases);
}

/// This rank's part of a generated box shape, made here: no rank builds the whole mesh and
/// nothing is sent but the halo's numbers. A failure on any rank (bad input) stops every rank.
PartPayload generate_part(const CaseSpec& spec, const ShapeGrid& shape, const RankGroup& group,
                          std::optional<WholeMeshFacts>& facts, RankPhases& phases)
{
    auto start = clock_type::now();
    std::exception_ptr failure;
    GridBlocks blocks;
    GridPart made;
    try {
        blocks = grid_blocks(shape.grid, group.host.size());
        made = grid_part(shape, blocks, group.host.rank());
        check_boundary_groups(made.part.mesh, spec.problem);
    } catch (...) {
        failure = std::current_exception();
    }
    const double generated = seconds_since(start);
    stop_if_any_failed(group.host, failure);
    phases.mesh = seconds_since(start);
    spdlog::info("the part generated: {} cells ({:.3f} s, then {:.3f} s until every rank had its part)",
                 made.part.mesh.num_cells(), generated, phases.mesh - generated);
    start = clock_type::now();
    HaloPlan halo = halo_plan_from_owners(group.host, made.numbering);
    phases.partition = seconds_since(start);
    if (group.host.rank() == 0) {
        const Mesh& part = made.part.mesh;
        facts = WholeMeshFacts{shape.source, shape.grid.dim, part.describe_cells(), shape.grid.num_points(),
                               shape.num_cells(), part.boundary_names(), {}, block_summary(shape, blocks)};
        facts->build_times.gpufem = phases.mesh;
        spdlog::info("mesh: {} cells ({}), {} nodes, generated part by part on {} ranks ({:.3f} s)", facts->num_cells,
                     facts->cells, facts->num_nodes, group.host.size(), phases.mesh);
        log_partition(facts->partition, phases.partition);
    }
    return PartPayload{std::move(made.part), std::move(made.numbering), std::move(halo)};
}

/// This rank's part: generated here for a box shape gpufem generates, else cut from the
/// whole mesh by rank 0. facts: set on rank 0.
PartPayload obtain_part(const CaseSpec& spec, const RankGroup& group, std::optional<WholeMeshFacts>& facts,
                        RankPhases& phases)
{
    std::optional<ShapeGrid> shape;
    std::exception_ptr failure;
    try {
        // Finite volumes' shares are cut from the whole mesh (its cells' faces find the ghosts).
        if (spec.discretisation != DiscretisationKind::fv) shape = box_shape_grid(spec.mesh);
    } catch (...) {
        failure = std::current_exception();
    }
    stop_if_any_failed(group.host, failure);
    return shape ? generate_part(spec, *shape, group, facts, phases) : receive_part(spec, group, facts, phases);
}

/// The part with its mesh's cells and coordinates also on the rank's GPU (uploaded once, for
/// the assembly, the Dirichlet data and the fluxes), the upload counted in the mesh phase.
PartPayload part_on_device(PartPayload part, const RankGroup& group, RankPhases& phases)
{
    if (!group.exec->is_cuda() || part.part.mesh.device) return part;
    const auto start = clock_type::now();
    part.part.mesh.device = upload_mesh(part.part.mesh, group.exec);
    phases.mesh += seconds_since(start);
    spdlog::info("the part's mesh on the GPU ({:.3f} s)", seconds_since(start));
    return part;
}

/// This rank's part on its device and rank 0's facts of the whole mesh: a sweep's previous
/// point's (record.mesh_reused), or obtained now (and kept in reuse where given).
RankSweepReuse rank_mesh(const CaseSpec& spec, const RankGroup& group, RankPhases& phases, RankSweepReuse* reuse,
                         RunRecord& record)
{
    if (reuse && reuse->part) {
        record.mesh_reused = true;
        spdlog::info("mesh: the previous sweep point's part ({} cells, {} nodes)", reuse->part->part.mesh.num_cells(),
                     reuse->part->part.mesh.num_nodes());
        return *reuse;
    }
    std::optional<WholeMeshFacts> facts;
    PartPayload made = part_on_device(obtain_part(spec, group, facts, phases), group, phases);
    auto part = std::make_shared<const PartPayload>(std::move(made));
    RankSweepReuse mesh{std::move(part), facts ? std::make_shared<const WholeMeshFacts>(std::move(*facts)) : nullptr,
                        nullptr};
    if (reuse) *reuse = mesh;
    return mesh;
}

/// The solve of the rank's rows with the others', timed; x: the solution (operator order);
/// report: the preconditioner's report. part: the mesh part whose coarser spaces pmg takes
/// (null: none, AMG alone). kept: a sweep's hierarchy to update (or to keep), or null.
template <typename V>
SolveResult solve_across_ranks(const CaseSpec& spec, const PartPayload* part, const DistributedSystem<V>& system,
                               const RankGroup& group, Array<V>& x, RankPhases& phases, nlohmann::json& report,
                               KeptRankPreconditioner<V>* kept)
{
    auto start = clock_type::now();
    double spaces_seconds = 0;
    std::function<std::vector<PartSpace<V>>()> spaces;
    if (part)
        spaces = [&] {
            const auto made = clock_type::now();
            auto out = preconditioner_spaces<V>(spec, *part, system.permutation, group.exec, group.host);
            spaces_seconds = seconds_since(made);
            return out;
        };
    const RankPreconditioner<V> m = rank_preconditioner<V>(spec, system, group, spaces, kept);
    phases.setup = seconds_since(start);
    spdlog::debug("preconditioner setup: coarser spaces {:.3f} s, the rest {:.3f} s", spaces_seconds,
                  phases.setup - spaces_seconds);
    report = m.report;
    start = clock_type::now();
    x = system.initial_guess.clone_to(group.exec);
    SolveResult result = solve(spec.solver.method, spec.solver.variant, *system.op, system.rhs, x,
                               solve_options(spec.solver), m.m, group.device);
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
    HostVector<double> out(owned.size() + ghosts.size());
    if constexpr (std::is_same_v<V, double>) {
        // Straight into the host vector: no intermediate copies of a rank's tens of millions.
        const ExecPtr host = Executor::create_cpu();
        if (!owned.empty()) copy_bytes(*host, out.data(), *group.exec, owned.data(), owned.bytes());
        if (!ghosts.empty()) copy_bytes(*host, out.data() + owned.size(), *group.exec, ghosts.data(), ghosts.bytes());
    } else {
        const std::vector<V> a = owned.to_host(), b = ghosts.to_host();
        std::copy(a.begin(), a.end(), out.begin());
        std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(a.size()));
    }
    return out;
}

/// A field over the part's nodes (part order) at the piece's nodes.
HostVector<double> on_piece_nodes(const OwnPiece& piece, const HostVector<double>& part_values)
{
    HostVector<double> out(piece.nodes.size());
    const long long n = static_cast<long long>(out.size());
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < n; ++k) out[k] = part_values[static_cast<std::size_t>(piece.nodes[k])];
    return out;
}

/// The rank's piece of result.pvtu: its own cells cut from the part and, on a CUDA rank writing
/// LZ4, their mesh written by the host's idle threads while the device solves (on four H200s
/// with 64M unknowns per rank, writing the pieces afterwards took longer than the solve).
class PieceOutput {
public:
    /// Starts the prewrite where it applies; the part must outlive this.
    PieceOutput(const CaseSpec& spec, const PartPayload& part, const RankGroup& group, StagedOutputs& outputs)
        : part_(part), compression_(spec.output.compression)
    {
        if (!spec.output.write_solution) return;
        file_ = outputs.stage(piece_file_name(group.host.rank()));
        if (!group.exec->is_cuda() || compression_ != VtuCompression::lz4 || mesh_has_gll_nodes(part.part.mesh)) return;
        const int cores = static_cast<int>(std::thread::hardware_concurrency());
        const int share = std::max(1, cores / std::max(1, group.ranks_on_node));
        prewrite_ = start_vtu_prewrite(
            file_, [this]() -> const Mesh& { return (piece_ = own_piece(part_.part)).mesh; }, std::max(1, 3 * share / 4));
        prewrite_->set_finish_threads(std::max(1, share - 1));  // the fields: this rank's share of the cores
    }

    /// The piece (once the prewrite's thread has cut it; rethrows that thread's failure).
    const OwnPiece& piece()
    {
        if (prewrite_) prewrite_->grid();
        else if (!cut_) piece_ = own_piece(part_.part);
        cut_ = true;
        return piece_;
    }

    /// Starts writing u (the part's values, ghosts included, at the piece's nodes) into the
    /// piece while the fluxes are computed, where the piece is prewritten; solution() hands it on.
    void start_solution(const HostVector<double>& local)
    {
        if (!prewrite_ || file_.empty()) return;
        solution_.emplace("u", on_piece_nodes(piece(), local));
        write_vtu_field_early(*prewrite_, piece().mesh, *solution_);
    }

    /// u at the piece's nodes: the values being written (their buffer moves on unchanged), or
    /// made now.
    HostVector<double> solution(const HostVector<double>& local)
    {
        if (!solution_) return on_piece_nodes(piece(), local);
        HostVector<double> values = std::move(solution_->values);
        solution_.reset();
        return values;
    }

    /// Writes the piece with its fields (to the staged file; no file when the case writes no solution).
    void write(const SolutionOutput& fields)
    {
        if (file_.empty()) return;
        write_vtu(file_, piece().mesh, fields.point_fields, fields.cell_fields, compression_, {}, prewrite_.get());
    }

private:
    const PartPayload& part_;
    VtuCompression compression_;
    std::filesystem::path file_;  ///< the staged piece; empty when the case writes no solution
    OwnPiece piece_;
    bool cut_ = false;
    std::unique_ptr<VtuLz4Prewrite> prewrite_;
    std::optional<MeshField> solution_;  ///< u, being written early (start_solution)
};

/// The part's flux fields moved onto its piece (its nodes; its own cells, the part's first:
/// the cell fields cut in place) and added to out.
void add_piece_fluxes(SolutionFluxes& fluxes, const PartPayload& part, const OwnPiece& piece, SolutionOutput& out)
{
    for (const MeshField& f : fluxes.point_fields)
        out.point_fields.emplace_back(f.name, on_piece_nodes(piece, f.values)).float32 = f.float32;
    for (MeshField& f : fluxes.cell_fields) {
        f.values.resize(static_cast<std::size_t>(part.part.own_cells));
        out.cell_fields.push_back(std::move(f));
    }
    fluxes.point_fields.clear(), fluxes.cell_fields.clear();
}

/// The rank's piece's fields: u (and, with an exact solution, u_exact and the error, evaluated
/// on the executor) and the rank as a cell field, written to result_<rank>.vtu (staged) unless
/// the case writes no solution, with the part's flux fields when given (moved out of fluxes).
/// Returns the fields and error norms (their squares summed over ranks by the caller); nothing
/// when there is nothing to write or measure.
SolutionOutput write_piece(const CaseSpec& spec, const PartPayload& part, const RankGroup& group,
                           const HostVector<double>& local, SolutionFluxes* fluxes, PieceOutput& output)
{
    const bool exact = !spec.problem.exact.empty();
    if (!spec.output.write_solution && !exact) return {};
    const OwnPiece& piece = output.piece();
    HostVector<double> u = output.solution(local);
    SolutionOutput out;
    if (exact) {
        LagrangeDiscretisation<double> disc(piece.mesh, spec.problem);
        disc.set_flux_output(false);  // the part's fluxes (fluxes) are the complete ones
        out = disc.solution_output(Array<double>::from_host(group.exec, std::span<const double>(u.data(), u.size())));
    }
    else
        out.point_fields.push_back({"u", std::move(u)});
    if (fluxes) add_piece_fluxes(*fluxes, part, piece, out);
    HostVector<double> rank(static_cast<std::size_t>(part.part.own_cells));
    const auto own = static_cast<long long>(rank.size());
    const double me = group.host.rank();
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < own; ++c) rank[static_cast<std::size_t>(c)] = me;
    out.cell_fields.emplace_back("rank", std::move(rank)).float32 = true;  // whole numbers: float holds them
    output.write(out);
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
    std::vector<std::string> files;
    std::vector<PvtuField> point_fields, cell_fields;
    for (int r = 0; r < group.host.size(); ++r) files.push_back(piece_file_name(r));
    for (const MeshField& f : piece.point_fields) point_fields.push_back({f.name, f.float32});
    for (const MeshField& f : piece.cell_fields) cell_fields.push_back({f.name, f.float32});
    if (spec.output.write_solution) write_pvtu(outputs.stage("result.pvtu"), files, point_fields, cell_fields);
    outputs.write_text("spmv_timings.csv", make_spmv_csv(account.record));
    outputs.write_text("report.json", make_distributed_report(spec, account).dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote {}report.json, spmv_timings.csv to {}",
                 spec.output.write_solution ? fmt::format("result.pvtu ({} pieces), ", files.size()) : "",
                 outputs.dir().string());
    spdlog::debug("device allocations over the run: {}", cuda::allocations_since());
}

/// The local number of the whole mesh's cell 0 in the part (-1: not held).
long long whole_first_cell(const PartPayload& part)
{
    const std::vector<index_type>& global = part.numbering.global;
    const auto at = std::find(global.begin(), global.end(), 0);
    return at == global.end() ? -1 : at - global.begin();
}

/// Waits until the device communicator has joined (NCCL joins on a thread of its own while
/// the rank meshes and assembles) and has connected this rank's neighbours and its sums: one
/// halo update of the system's right-hand side (the ghosts discarded) and a sum of one value.
/// So neither the assembly nor the solve pays for it. Returns the seconds waited, which the
/// start-up counts (the executor's and the communicators').
template <typename V>
double join_device_communicator(const RankGroup& group, const PartPayload& part, const DistributedSystem<V>& system)
{
    const auto start = clock_type::now();
    const HaloExchange<V> halo(part.halo, group.exec, group.device);
    Array<V> ghosts(group.exec, static_cast<std::size_t>(halo.ghosts()));
    halo.update(system.rhs, ghosts);
    Array<double> one(group.exec, 1);
    zero_bytes(*group.exec, one.data(), one.bytes());
    group.device.all_reduce_sum(*group.exec, one.data(), 1);
    group.exec->synchronize();
    const double waited = seconds_since(start);
    spdlog::info("device communicator ready after {:.3f} s more (counted in the start-up)", waited);
    return waited;
}

/// The comment of an exported system's files.
std::string export_comment(const CaseSpec& spec, const RankGroup& group)
{
    return fmt::format("gpufem case {}: {}, degree {}, assembled on {} ranks", spec.name,
                       spec.discretisation == DiscretisationKind::fv ? "finite volumes" : "finite elements",
                       spec.mesh.degree, group.host.size());
}

/// --export-matrix of a finite-volume run: the own cells' rows, the right-hand side the
/// solution x (part order) solves (corrected by x where the scheme corrects), and x.
template <typename V>
void export_fv_rows(const CaseSpec& spec, const FiniteVolumeDiscretisation<V>& disc, const PartPayload& part,
                    const RankGroup& group, const Array<V>& x, const std::filesystem::path& dir)
{
    LinearSystem<V> rows = fv_part_owned_system(group.exec, part, disc);
    if (disc.correction_passes() > 0)
        rows.rhs = FvRankCorrection<V>(disc, part.halo, part.numbering.layout.owned, group.exec, group.device)
                       .corrected_rhs(x);
    export_rank_system(group.host, rows_to_export(rows.matrix, rows.rhs, x, part.numbering.global), dir,
                       export_comment(spec, group));
}

/// run_ranks for finite volumes: the rank's share of the cells (its own, then its ghosts),
/// its rows, the solve with the correction across ranks, its own cells' piece.
template <typename V>
RunRecord run_fv_ranks(const CaseSpec& spec, const RunOptions& options, const RankGroup& group, RankSweepReuse* reuse)
{
    DistributedAccount account;
    RankPhases& phases = account.mine;
    phases.startup = seconds_since(options.started);
    const RankSweepReuse mesh = rank_mesh(spec, group, phases, reuse, account.record);
    const PartPayload& part = *mesh.part;
    const WholeMeshFacts* whole = mesh.whole.get();
    FiniteVolumeDiscretisation<V> disc(part.part.mesh, spec.problem, spec.fv);
    disc.share_among_ranks({part.part.own_cells, whole_first_cell(part), &group.host});
    DistributedSystem<V> system = build_distributed_fv_system<V>(group.exec, part, spec, group.device, disc, &group.host);
    phases.assembly = system.assembly_times.total();
    phases.operator_build = system.operator_seconds;
    phases.startup += join_device_communicator(group, part, system);
    StagedOutputs pieces(output_folder(spec, options));
    PieceOutput piece_output(spec, part, group, pieces);
    SystemSolution<V> solved = solve_fv_across_ranks(spec, system, disc, part, group, phases,
                                                     reuse ? kept_rank_preconditioner<V>(*reuse) : nullptr);
    if (!options.export_matrix_dir.empty()) export_fv_rows(spec, disc, part, group, solved.x, options.export_matrix_dir);
    const auto start = clock_type::now();
    SolutionOutput piece = disc.solution_output(solved.x);
    std::optional<SolutionFluxes> fluxes;
    if (spec.output.fluxes) {
        fluxes = fv_part_fluxes(spec, disc, part, group, solved.x);
        add_piece_fluxes(*fluxes, part, piece_output.piece(), piece);
    }
    piece.cell_fields.emplace_back(
        "rank", HostVector<double>(static_cast<std::size_t>(part.part.own_cells), static_cast<double>(group.host.rank())));
    piece_output.write(piece);
    phases.output = seconds_since(start);
    RunRecord& r = account.record;
    r.solve = solved.result;
    r.preconditioner = solved.preconditioner;
    r.pass_iterations = solved.pass_iterations;
    r.correction = solved.correction;
    r.correction_change = solved.correction_change;
    r.discretisation = disc.report();
    account_for_ranks(spec, group, part, system, whole, piece, options, account);
    if (fluxes) r.fluxes = fluxes->report;
    r.unknowns_on = "cells";
    if (r.correction == "implicit") r.spmvs_per_iteration = spmvs_per_iteration(KrylovMethod::bicgstab);
    finish_outputs(spec, group, piece, pieces, account);
    return r;
}

/// A Matrix Market system's files on rank 0: solution.mtx (where the case writes a solution),
/// spmv_timings.csv and report.json, staged and renamed together.
void finish_matrix_outputs(const CaseSpec& spec, const RunOptions& options, const RankGroup& group,
                           const std::vector<double>& solution, const DistributedAccount& account)
{
    if (group.host.rank() != 0) return;
    StagedOutputs outputs(output_folder(spec, options));
    if (spec.output.write_solution)
        write_matrix_market_vector(outputs.stage("solution.mtx"), solution,
                                   "gpufem solution of " + spec.matrix->file.filename().string());
    outputs.write_text("spmv_timings.csv", make_spmv_csv(account.record));
    outputs.write_text("report.json", make_distributed_report(spec, account).dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote {}report.json, spmv_timings.csv to {}", spec.output.write_solution ? "solution.mtx, " : "",
                 outputs.dir().string());
}

/// run_ranks for a Matrix Market system: each rank's block of rows (matrix_rows.hpp), the
/// solve, the solution gathered on rank 0 into solution.mtx.
template <typename V>
RunRecord run_matrix_ranks(const CaseSpec& spec, const RunOptions& options, const RankGroup& group)
{
    DistributedAccount account;
    RankPhases& phases = account.mine;
    phases.startup = seconds_since(options.started);
    RankMatrixRows<V> rows = receive_matrix_rows<V>(spec, group, phases);
    std::optional<Csr<V>> kept_rows;  // for --export-matrix
    if (!options.export_matrix_dir.empty()) kept_rows = rows.system.matrix.clone_to(group.exec);
    DistributedSystem<V> system = build_distributed_rows_system<V>(group.exec, rows.part, spec, group.device,
                                                                   group.host, std::move(rows.system));
    phases.operator_build = system.operator_seconds;
    phases.startup += join_device_communicator(group, rows.part, system);
    Array<V> x;
    account.record.solve = solve_across_ranks<V>(spec, nullptr, system, group, x, phases,
                                                 account.record.preconditioner, nullptr);
    const auto start = clock_type::now();
    const Array<V> mine = in_part_order(system, x);
    if (kept_rows)
        export_rank_system(group.host, rows_to_export(*kept_rows, in_part_order(system, system.rhs), mine,
                                                      rows.part.numbering.global),
                           options.export_matrix_dir, rows.describe);
    const std::vector<V> host = mine.to_host();
    const std::vector<double> values(host.begin(), host.end());
    SolutionOutput piece;
    if (rows.against_ones) piece.errors = error_against_ones(values);
    const std::vector<double> solution = gather_matrix_solution(group.host, rows.first_row, values);
    phases.output = seconds_since(start);
    account_for_ranks(spec, group, rows.part, system, nullptr, piece, options, account);
    RunRecord& r = account.record;
    r.unknowns_on = "rows";
    r.mesh_source = "matrix file " + spec.matrix->file.string();  // as one process names it
    r.time_read = r.time_mesh;
    r.time_mesh = 0;
    r.discretisation = rows.report;
    finish_matrix_outputs(spec, options, group, solution, account);
    return r;
}

template <typename V>
RunRecord run_ranks(const CaseSpec& spec, const RunOptions& options, const RankGroup& group, RankSweepReuse* reuse)
{
    if (spec.matrix) return run_matrix_ranks<V>(spec, options, group);
    if (spec.discretisation == DiscretisationKind::fv) return run_fv_ranks<V>(spec, options, group, reuse);
    DistributedAccount account;
    RankPhases& phases = account.mine;
    phases.startup = seconds_since(options.started);
    const RankSweepReuse mesh = rank_mesh(spec, group, phases, reuse, account.record);
    const PartPayload& part = *mesh.part;
    const WholeMeshFacts* whole = mesh.whole.get();
    DistributedSystem<V> system = build_distributed_system<V>(group.exec, part, spec, group.device, &group.host);
    phases.assembly = system.assembly_times.total();
    phases.operator_build = system.operator_seconds;
    phases.startup += join_device_communicator(group, part, system);
    // The piece's mesh is written while the devices solve (the host is idle then; earlier its
    // threads slowed the rank's own host work down).
    StagedOutputs pieces(output_folder(spec, options));
    PieceOutput piece_output(spec, part, group, pieces);
    Array<V> x;
    account.record.solve = solve_across_ranks(spec, &part, system, group, x, phases, account.record.preconditioner,
                                              reuse ? kept_rank_preconditioner<V>(*reuse) : nullptr);
    if (!options.export_matrix_dir.empty()) {
        const auto exporting = clock_type::now();
        const LinearSystem<V> rows = part_owned_system<V>(group.exec, part, spec, group.host);
        export_rank_system(group.host, rows_to_export(rows.matrix, rows.rhs, in_part_order(system, x), part.numbering.global),
                           options.export_matrix_dir, export_comment(spec, group));
        spdlog::info("--export-matrix: {:.3f} s", seconds_since(exporting));
    }
    const auto start = clock_type::now();
    const HostVector<double> local = values_with_ghosts(system, part, group, x);
    const double gathered = seconds_since(start);
    // u goes into the piece while the fluxes are computed (with an exact solution, u comes
    // from the piece's discretisation with the error, at the end).
    if (spec.problem.exact.empty()) piece_output.start_solution(local);
    std::optional<SolutionFluxes> fluxes;
    if (spec.output.fluxes) fluxes = part_fluxes(spec, part, group.exec, group.host, group.device, local);
    const SolutionOutput piece = write_piece(spec, part, group, local, fluxes ? &*fluxes : nullptr, piece_output);
    phases.output = seconds_since(start);
    spdlog::info("output of the part: u with its ghosts on the host {:.3f} s, the piece {:.3f} s", gathered,
                 phases.output - gathered);
    account_for_ranks(spec, group, part, system, whole, piece, options, account);
    if (fluxes) account.record.fluxes = fluxes->report;
    finish_outputs(spec, group, piece, pieces, account);
    return account.record;
}

}  // namespace

void stop_if_any_failed(const Communicator& host, const std::exception_ptr& failure)
{
    const double mine = failure ? 1.0 : 0.0;
    const std::vector<double> failed = gather_on_every_rank(host, std::span<const double>(&mine, 1));
    const auto first = std::find(failed.begin(), failed.end(), 1.0);
    if (first == failed.end()) return;
    const int reporter = static_cast<int>(first - failed.begin());
    std::string message = fmt::format("rank {} stopped the run", reporter);
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const std::exception& e) {
            message = e.what();
        } catch (...) {
            message = "an unknown error";
        }
    }
    throw StoppedOnEveryRank(message, host.rank() == reporter);
}

PartPayload part_of_rank(const CaseSpec& spec, const RankGroup& group)
{
    std::optional<WholeMeshFacts> facts;
    RankPhases phases;
    return obtain_part(spec, group, facts, phases);
}

void check_distributed_case(const CaseSpec& spec)
{
    const auto refuse = [](const std::string& what) {
        throw std::invalid_argument(what + " (under mpirun with more than one rank)");
    };
    const OperatorChoice choice = lookup_operator(spec.format);  // none for format: auto
    if (choice.level && !choice.level->across_ranks())
        refuse("format: " + spec.format + " runs on one rank only so far; use lma or pa (matrix-free) or an "
               "assembled format");
    if (!spec.solver.preconditioner->across_ranks)
        refuse("solver.preconditioner " + spec.solver.preconditioner->name +
               ": only amg, pmg, jacobi or none work across ranks so far");
}

RunRecord run_distributed_case(const CaseSpec& spec, const RunOptions& options, const RankGroup& group,
                               RankSweepReuse* reuse)
{
    check_distributed_case(spec);
    return spec.precision == Precision::float32 ? run_ranks<float>(spec, options, group, reuse)
                                                  : run_ranks<double>(spec, options, group, reuse);
}

}  // namespace gpufem
