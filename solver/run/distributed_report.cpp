#include "solver/run/distributed_report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/rank_messages.hpp"

namespace gpufem {
namespace {

/// The per-rank figures gathered, in this order.
enum Figure {
    f_startup, f_mesh, f_partition, f_scatter, f_assembly, f_operator, f_setup, f_solve, f_output,
    f_geometry, f_coefficients, f_pattern, f_values, f_boundary,
    f_owned, f_ghosts, f_own_cells, f_local_nnz, f_nonlocal_nnz, f_halo_bytes, f_dirichlet, f_bytes_stored,
    f_spmv_bytes, f_row_min, f_row_max, f_wide_offsets,
    f_l2, f_h1, f_max_nodal, f_l2_exact, figure_count
};

constexpr const char* phase_names[] = {"startup", "mesh", "partition", "scatter", "assembly",
                                       "operator", "preconditioner_setup", "solve", "output"};

/// This rank's figures.
template <typename V>
std::vector<double> rank_figures(const RankPhases& p, const PartPayload& part, const DistributedSystem<V>& system,
                                 const SolutionOutput& piece)
{
    std::vector<double> v(figure_count, 0.0);
    const double phases[] = {p.startup, p.mesh,  p.partition, p.scatter, p.assembly,
                             p.operator_build, p.setup, p.solve, p.output};
    std::copy(std::begin(phases), std::end(phases), v.begin());
    const AssemblyTimes& a = system.assembly_times;
    v[f_geometry] = a.geometry, v[f_coefficients] = a.coefficients, v[f_pattern] = a.pattern;
    v[f_values] = a.values, v[f_boundary] = a.boundary;
    v[f_owned] = part.numbering.layout.owned, v[f_ghosts] = part.numbering.layout.ghosts();
    v[f_own_cells] = part.part.own_cells;
    v[f_local_nnz] = static_cast<double>(system.local_nnz), v[f_nonlocal_nnz] = static_cast<double>(system.nonlocal_nnz);
    v[f_halo_bytes] = static_cast<double>(system.op->halo_bytes()), v[f_dirichlet] = system.dirichlet_rows;
    v[f_bytes_stored] = static_cast<double>(system.op->bytes_stored());
    v[f_spmv_bytes] = static_cast<double>(system.op->spmv_min_bytes());
    v[f_row_min] = system.row_stats.min, v[f_row_max] = system.row_stats.max;
    v[f_wide_offsets] = system.wide_offsets ? 1.0 : 0.0;
    if (piece.errors) {
        v[f_l2] = piece.errors->l2 * piece.errors->l2, v[f_h1] = piece.errors->h1_semi * piece.errors->h1_semi;
        v[f_max_nodal] = piece.errors->max_nodal, v[f_l2_exact] = piece.errors->l2_exact * piece.errors->l2_exact;
    }
    return v;
}

/// Figure f of every rank.
std::vector<double> column(const std::vector<double>& all, int f)
{
    std::vector<double> out;
    for (std::size_t r = 0; r < all.size() / figure_count; ++r) out.push_back(all[r * figure_count + f]);
    return out;
}

double total(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }
double largest(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

nlohmann::json spread(const std::vector<double>& v)
{
    return {{"min", *std::min_element(v.begin(), v.end())}, {"max", largest(v)}, {"mean", total(v) / v.size()}};
}

/// The run's totals: sums of sizes, the slowest rank's phases (what the user waits for).
void fill_record(const std::vector<double>& all, const RankPhases& mine, RunRecord& r)
{
    const auto sum = [&](int f) { return total(column(all, f)); };
    const auto slowest = [&](int f) { return largest(column(all, f)); };
    r.unknowns_on = "nodes";
    r.rows = static_cast<index_type>(sum(f_owned));
    r.nnz = static_cast<std::size_t>(sum(f_local_nnz) + sum(f_nonlocal_nnz));
    r.dirichlet_rows = static_cast<index_type>(sum(f_dirichlet));
    r.bytes_stored = static_cast<std::size_t>(sum(f_bytes_stored));
    r.wide_offsets = slowest(f_wide_offsets) > 0;  // some rank's block has 64-bit row offsets
    r.spmv_min_bytes = static_cast<std::size_t>(sum(f_spmv_bytes));
    const std::vector<double> shortest = column(all, f_row_min);
    r.row_stats = {static_cast<index_type>(*std::min_element(shortest.begin(), shortest.end())),
                   r.rows > 0 ? static_cast<double>(r.nnz) / r.rows : 0.0, static_cast<index_type>(slowest(f_row_max))};
    r.time_mesh = slowest(f_mesh) + slowest(f_partition) + slowest(f_scatter);
    r.time_assembly = {slowest(f_geometry), slowest(f_coefficients), slowest(f_pattern), slowest(f_values),
                       slowest(f_boundary)};
    r.time_operator = slowest(f_operator);
    r.time_preconditioner_setup = slowest(f_setup);
    r.time_solve = slowest(f_setup) + slowest(f_solve);
    r.time_output = slowest(f_output);
    r.time_startup = mine.startup;
    r.spmv_seconds = r.solve.spmv_seconds;
    r.spmv_clock = r.solve.spmv_clock;
}

/// The exact-solution errors over the whole mesh from every rank's piece.
std::optional<ErrorNorms> global_errors(const std::vector<double>& all, bool exact)
{
    if (!exact) return std::nullopt;
    ErrorNorms e;
    e.l2 = std::sqrt(total(column(all, f_l2)));
    e.h1_semi = std::sqrt(total(column(all, f_h1)));
    e.max_nodal = largest(column(all, f_max_nodal));
    e.l2_exact = std::sqrt(total(column(all, f_l2_exact)));
    return e;
}

/// report.json's "parallel" section.
nlohmann::json parallel_section(const std::vector<double>& all, const RankGroup& group, const CellPartition* cut)
{
    nlohmann::json j;
    j["ranks"] = group.host.size();
    j["communicator"] = group.device.describe();
    j["host_communicator"] = group.host.describe();
    if (cut) {
        j["partition"] = {{"method", cut->method}, {"cell_imbalance", cut->imbalance()}};
        j["partition"]["faces_cut"] = cut->edge_cut >= 0 ? nlohmann::json(cut->edge_cut) : nlohmann::json();
    }
    for (int f = 0; f < static_cast<int>(std::size(phase_names)); ++f)
        j["phases"][phase_names[f]] = spread(column(all, f));
    const std::vector<double> owned = column(all, f_owned);
    j["rows_imbalance"] = largest(owned) / (total(owned) / owned.size());
    j["per_rank"] = {{"owned_rows", owned}, {"ghosts", column(all, f_ghosts)}, {"own_cells", column(all, f_own_cells)},
                     {"local_nnz", column(all, f_local_nnz)}, {"nonlocal_nnz", column(all, f_nonlocal_nnz)},
                     {"halo_bytes_per_product", column(all, f_halo_bytes)}, {"solve_seconds", column(all, f_solve)},
                     {"assembly_seconds", column(all, f_assembly)}};
    j["halo_bytes_per_product"] = total(column(all, f_halo_bytes));
    return j;
}

}  // namespace

WholeMeshFacts whole_mesh_facts(const Mesh& whole, const CellPartition& partition)
{
    WholeMeshFacts facts{whole.source, whole.dim, whole.describe_cells(), whole.num_nodes(), whole.num_cells(),
                         whole.boundary_names(), whole.build_times, {}};
    facts.partition.parts = partition.parts;
    facts.partition.cells_per_part = partition.cells_per_part;
    facts.partition.edge_cut = partition.edge_cut;
    facts.partition.method = partition.method;
    return facts;
}

std::string piece_file_name(int rank)
{
    return fmt::format("result_{}.vtu", rank);
}

template <typename V>
void account_for_ranks(const CaseSpec& spec, const RankGroup& group, const PartPayload& part,
                       const DistributedSystem<V>& system, const WholeMeshFacts* whole,
                       const SolutionOutput& piece, const RunOptions& options, DistributedAccount& account)
{
    const std::vector<double> all = gather_on_every_rank(group.host, rank_figures(account.mine, part, system, piece));
    RunRecord& r = account.record;
    r.backend = backend_name(group.exec->backend());
    r.device = group.exec->device_name();
    r.precision = precision_name(spec.precision);
    r.format = system.format.empty() ? spec.format : system.format;
    r.format_parameters = system.format_parameters;
    r.format_choice = system.format_choice;
    r.time_format_choice = system.format_choice_seconds;
    r.reorder = enum_name(reordering_names, spec.format_options.reordering());
    fill_record(all, account.mine, r);
    // An exact solution's errors, or a Matrix Market system's against the ones it was made from.
    r.errors = global_errors(all, !spec.problem.exact.empty() || (spec.matrix && spec.matrix->rhs.empty()));
    r.spmvs_per_iteration = spmvs_per_iteration(spec.solver.method);
    if (whole) {
        r.mesh_source = whole->source, r.dim = whole->dim, r.cell_type = whole->cells;
        r.nodes = static_cast<index_type>(whole->num_nodes), r.cells = static_cast<index_type>(whole->num_cells);
        r.boundary_groups = whole->boundary_groups, r.time_mesh_parts = whole->build_times;
        r.mesh_cache = whole->cache;
    }
    account.parallel = parallel_section(all, group, whole ? &whole->partition : nullptr);
    r.time_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - options.started).count();
    const std::vector<double> owned = column(all, f_owned);
    if (group.host.rank() == 0)
        spdlog::info("{} ranks ({}): owned rows {:.0f} to {:.0f}, halo {:.0f} bytes per product, slowest solve "
                     "{:.3f} s", group.host.size(), group.device.describe(), *std::min_element(owned.begin(), owned.end()),
                     largest(owned), total(column(all, f_halo_bytes)), largest(column(all, f_solve)));
}

nlohmann::json make_distributed_report(const CaseSpec& spec, const DistributedAccount& account)
{
    nlohmann::json report = make_report(spec, account.record);
    report["parallel"] = account.parallel;
    return report;
}

#define GPUFEM_INSTANTIATE(V)                                                                                      \
    template void account_for_ranks(const CaseSpec&, const RankGroup&, const PartPayload&,                        \
                                    const DistributedSystem<V>&, const WholeMeshFacts*,                                     \
                                    const SolutionOutput&, const RunOptions&, DistributedAccount&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
