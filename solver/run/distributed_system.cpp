#include "solver/run/distributed_system.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <type_traits>

#include <spdlog/spdlog.h>

#include "assembly/boundary_data.hpp"
#include "assembly/dirichlet.hpp"
#include "assembly/lagrange_discretisation.hpp"
#include "assembly/operator_levels.hpp"
#include "linalg/array_prefix.hpp"
#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "linalg/split_kernels.hpp"
#include "solver/run/format_choice.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Rows 0 .. rows - 1 of a (every column kept), on a's executor.
template <typename V, typename O>
Csr<V, O> leading_rows(const Csr<V, O>& a, index_type rows)
{
    O entries = 0;
    copy_bytes(*Executor::create_cpu(), &entries, *a.executor(), a.row_ptr.data() + rows, sizeof(O));
    return Csr<V, O>{rows, a.cols, leading(a.row_ptr, static_cast<std::size_t>(rows) + 1),
                     leading(a.col_idx, static_cast<std::size_t>(entries)),
                     leading(a.values, static_cast<std::size_t>(entries))};
}

/// The ghosts' Dirichlet mask and values as their owners have them, written over the ghost
/// entries of here: the owned entries as assembled here go through the halo on here's
/// executor (a ghost on a Dirichlet face that no facet of this part holds is constrained on
/// its owner only).
template <typename V>
void owners_dirichlet(const PartPayload& part, const Communicator& comm, DirichletData<V>& here)
{
    const index_type owned = part.numbering.layout.owned, ghosts = part.numbering.layout.ghosts();
    if (ghosts == 0 && part.halo.sends.empty()) return;
    const ExecPtr& exec = here.values.executor();
    const Executor& e = *exec;
    Array<V> owned_mask(exec, static_cast<std::size_t>(owned));
    GPUFEM_DISPATCH(e, mask_to_values(e, owned, here.mask.data(), owned_mask.data()));
    const HaloExchange<V> halo(part.halo, exec, comm);
    Array<V> ghost_mask(exec, static_cast<std::size_t>(ghosts)), ghost_values(exec, static_cast<std::size_t>(ghosts));
    halo.update(owned_mask, ghost_mask);
    halo.update(here.values, ghost_values);  // reads the owned entries only
    GPUFEM_DISPATCH(e, values_to_mask(e, ghosts, ghost_mask.data(), here.mask.data() + owned));
    if (ghosts > 0) copy_bytes(e, here.values.data() + owned, e, ghost_values.data(), ghost_values.bytes());
    e.synchronize();  // the temporaries go out of scope
}

/// The owned rows of the assembled part (assembled: its matrix, freed once they are copied)
/// with the ghosts' Dirichlet columns eliminated (the elimination is idempotent on what the
/// assembly already eliminated); rhs cut to the owned rows and corrected.
template <typename V, typename O>
Csr<V, O> owned_rows(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec, const Communicator& comm,
                     Csr<V, O> assembled, LinearSystem<V>& system)
{
    const index_type owned = part.numbering.layout.owned;
    auto start = clock_type::now();
    Csr<V, O> rows = leading_rows(assembled, owned);
    assembled = Csr<V, O>{};
    system.rhs = leading(system.rhs, static_cast<std::size_t>(owned));
    const MeshOnExec mesh(part.part.mesh, exec);
    DirichletData<V> here = dirichlet_data<V>(exec, part.part.mesh, mesh.coordinates, spec.problem.dirichlet);
    exec->synchronize();
    const double evaluated = seconds_since(start);
    start = clock_type::now();
    owners_dirichlet(part, comm, here);
    const double exchanged = seconds_since(start);
    start = clock_type::now();
    const std::vector<std::uint8_t> mask = here.mask.to_host();
    system.dirichlet_count = static_cast<index_type>(std::count(mask.begin(), mask.begin() + owned, 1));
    GPUFEM_DISPATCH(*exec, apply_dirichlet(*exec, rows, here.mask.data(), here.values.data(), system.rhs.data()));
    system.initial_guess = leading(system.initial_guess, static_cast<std::size_t>(owned));
    exec->synchronize();
    spdlog::info("rows of the part: owned rows and Dirichlet data {:.3f} s, the ghosts' Dirichlet data from their "
                 "owners {:.3f} s, elimination {:.3f} s", evaluated, exchanged, seconds_since(start));
    return rows;
}

/// The halo plan with the owned unknowns it sends renumbered to the operator's order.
HaloPlan renumbered_halo(const HaloPlan& plan, const Array<index_type>& permutation)
{
    if (permutation.empty()) return plan;
    const std::vector<index_type> perm = permutation.to_host();
    std::vector<index_type> new_of(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) new_of[static_cast<std::size_t>(perm[i])] = static_cast<index_type>(i);
    HaloPlan out = plan;
    for (HaloPlan::Send& send : out.sends)
        for (index_type& l : send.local) l = new_of[static_cast<std::size_t>(l)];
    return out;
}

/// v in the permuted order (a copy when there is no permutation).
template <typename V>
Array<V> permuted(const Array<index_type>& permutation, const Array<V>& v, bool back)
{
    if (permutation.empty()) return v.clone_to(v.executor());
    Array<V> out(v.executor(), v.size());
    permute_vector(permutation, v, out, back);
    return out;
}


/// The matrix-free system of the part, built by the level's part builder: the cells with
/// owned nodes only applied while the halo moves, the cells with a ghost node after it
/// (assembly/part_system.hpp). Its halo through comm, the build's exchange through setup.
template <typename V>
DistributedSystem<V> matrix_free_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                        const OperatorLevelEntry& level, const Communicator& comm,
                                        const Communicator& setup)
{
    DistributedSystem<V> out;
    const auto start = clock_type::now();
    const PartOperatorBuilder<V> build = level.part_builder<V>();
    if (!build) throw std::invalid_argument("format " + level.name + " runs on one rank only");
    PartMatrixFreeSystem<V> built =
        build(exec, part.part.mesh, part.numbering.layout.owned, spec.problem, spec.format_options,
              [&](DirichletData<V>& here) { owners_dirichlet(part, setup, here); });
    out.assembly_times = built.times;
    out.format_parameters = built.interior->parameters();
    const auto halo_start = clock_type::now();
    out.op = std::make_unique<DistributedOperator<V>>(std::move(built.interior), std::move(built.boundary),
                                                      part.halo, comm);
    exec->synchronize();
    spdlog::info("operator of the part: {} cells before the halo, {} after it (halo {:.3f} s)", built.interior_cells,
                 built.boundary_cells, seconds_since(halo_start));
    out.rhs = std::move(built.rhs);
    out.initial_guess = std::move(built.initial_guess);
    out.dirichlet_rows = built.dirichlet_count;
    exec->synchronize();
    // The element matrices are the operator: their time is the assembly's, as on one rank.
    out.operator_seconds = seconds_since(start) - out.assembly_times.total();
    return out;
}

/// The assembled rows beside a matrix-free operator (out, its part's system), for a
/// preconditioner that sets up from them (AMG's aggregation, pmg's Galerkin products), as one
/// rank assembles them beside lma or pa: part_owned_system's rows split into their own and
/// ghost columns, in the part's order (the matrix-free operator's). Their assembly is added
/// to out's; the build's exchange through setup.
template <typename V>
void keep_assembled_rows(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                         const Communicator& setup, DistributedSystem<V>& out)
{
    const auto start = clock_type::now();
    const LinearSystem<V> system = part_owned_system<V>(exec, part, spec, setup);
    SplitRows<V> split = split_owned_columns(system.matrix, part.numbering.layout.ghosts());
    out.local_rows = std::move(split.local);
    out.ghost_rows = std::move(split.nonlocal);
    out.halo = part.halo;
    out.keeps_rows = true;
    exec->synchronize();
    // The rows' assembly is the assembly's; the rest (the ghosts' Dirichlet data, the split)
    // the operator's.
    AssemblyTimes& t = out.assembly_times;
    t.geometry += system.times.geometry;
    t.coefficients += system.times.coefficients;
    t.pattern += system.times.pattern;
    t.values += system.times.values;
    t.boundary += system.times.boundary;
    out.operator_seconds += seconds_since(start) - system.times.total();
    spdlog::info("rows of the part assembled beside the {} operator for the preconditioner's setup: {} and {} entries "
                 "({:.3f} s)", spec.format, out.local_rows.nnz(), out.ghost_rows.nnz(), seconds_since(start));
}

/// The format the owned rows' local block is stored in: the case's, or with format: auto
/// the one the ranks choose together on split's local block (out records the choice; host
/// and comm: the ranks for host data and for the short run's operator). 64-bit row offsets
/// take the baseline (csr), the one format that stores them.
template <typename V, typename O>
const FormatEntry& local_format(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                const Communicator& comm, const Communicator& host, const SplitRows<V, O>& split,
                                const LinearSystem<V>& system, DistributedSystem<V>& out)
{
    if (spec.format != auto_format_name) return *find_operator(spec.format).format;
    if constexpr (std::is_same_v<O, wide_offset_type>) {
        return baseline_format();
    } else {
        const auto baseline = [&]() -> std::unique_ptr<LinearOperator<V>> {
            FormatOptions options = spec.format_options;
            options.set_reordering(Reordering::none);
            FormatBuild<V> local = build_format<V>(baseline_format(), split.local.clone_to(exec), options);
            return std::make_unique<DistributedOperator<V>>(std::move(local.op), split.nonlocal.clone_to(exec),
                                                            part.halo, comm);
        };
        const FormatChoice choice = choose_rank_format<V>(split.local, system, baseline, spec, host, comm);
        spdlog::info("{}  (each format's expected time on the slowest of the {} ranks decides; this rank's times "
                     "above)", choice.table(), host.size());
        out.format_choice = choice.to_json();
        out.format_choice["decided_by"] = "the slowest rank's expected time";
        out.format_choice_seconds = choice.seconds;
        return *find_operator(choice.format).format;
    }
}

/// The distributed system of the owned rows (owned columns, then the ghosts') with their
/// right-hand side and initial guess: split into the local block, stored in the case's format,
/// and the ghost columns behind the part's halo. start: when the operator's build began;
/// host: the ranks for host data (format: auto's decision).
template <typename V, typename O>
DistributedSystem<V> from_owned_rows(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                     const Communicator& comm, const Communicator& host, Csr<V, O> rows,
                                     const LinearSystem<V>& system, clock_type::time_point start)
{
    constexpr bool wide = std::is_same_v<O, wide_offset_type>;
    DistributedSystem<V> out;
    out.assembly_times = system.times;
    out.row_stats = row_stats(rows);
    out.wide_offsets = wide;
    auto step = clock_type::now();
    SplitRows<V, O> split = split_owned_columns(rows, part.numbering.layout.ghosts());
    out.local_nnz = static_cast<std::size_t>(split.local.nnz());
    out.nonlocal_nnz = static_cast<std::size_t>(split.nonlocal.nnz());
    exec->synchronize();
    rows = Csr<V, O>{};
    const double split_seconds = seconds_since(step);
    step = clock_type::now();
    out.keeps_rows = spec.solver.preconditioner->needs.assembled_matrix;
    // A format that keeps its CSR arrays lends them; the others' rows are copied first (with
    // 64-bit offsets only csr, which keeps them, takes the rows).
    const FormatEntry& format = local_format(exec, part, spec, comm, host, split, system, out);
    out.format = format.name;
    const bool lends_csr = format.keeps_csr;
    if constexpr (!wide)
        if (out.keeps_rows && !lends_csr) out.local_rows = split.local.clone_to(exec);
    FormatBuild<V> local = build_format<V>(format, std::move(split.local), spec.format_options);
    exec->synchronize();
    const double format_seconds = seconds_since(step);
    step = clock_type::now();
    out.permutation = std::move(local.permutation);
    if (!out.permutation.empty()) split.nonlocal = permute_rows(split.nonlocal, out.permutation);
    out.format_parameters = local.op->parameters();
    HaloPlan halo = renumbered_halo(part.halo, out.permutation);
    const LinearOperator<V>& local_block = *local.op;
    if (out.keeps_rows) {
        if (!lends_csr && !out.permutation.empty()) out.local_rows = permute_symmetric(out.local_rows, out.permutation);
        out.ghost_rows = split.nonlocal.clone_to(exec);
        out.halo = halo;
    }
    out.op = std::make_unique<DistributedOperator<V>>(std::move(local.op), std::move(split.nonlocal), halo, comm);
    if (out.keeps_rows && lends_csr) {
        if constexpr (wide) out.lent_wide_rows = local_block.stored_wide_csr();
        else out.lent_rows = local_block.stored_csr();
        if (!out.lent_rows && !out.lent_wide_rows)
            throw std::logic_error("format " + spec.format + " keeps no CSR arrays although it says it does");
    }
    out.rhs = permuted(out.permutation, system.rhs, false);
    out.initial_guess = permuted(out.permutation, system.initial_guess, false);
    out.dirichlet_rows = system.dirichlet_count;
    exec->synchronize();
    spdlog::info("operator of the part: owned and ghost columns split {:.3f} s, local block as {} {:.3f} s, "
                 "ghost columns and halo {:.3f} s",
                 split_seconds, out.format, format_seconds, seconds_since(step));
    out.operator_seconds = seconds_since(start);
    return out;
}

}  // namespace

template <typename V>
LinearSystem<V> part_owned_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                  const Communicator& comm)
{
    const LagrangeDiscretisation<V> disc(part.part.mesh, spec.problem);
    LinearSystem<V> system = disc.assemble(exec, CsrOffsets::fit);
    if (system.wide_matrix)
        throw std::invalid_argument("a rank's assembled rows have more than 2^31 - 1 non-zeros, which gpufem keeps in "
                                    "CSR with 32-bit offsets only for a preconditioner's setup or --export-matrix; "
                                    "run on more ranks");
    system.matrix = owned_rows(exec, part, spec, comm, std::move(system.matrix), system);
    return system;
}

template <typename V>
DistributedSystem<V> build_distributed_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                              const Communicator& comm, const Communicator* setup)
{
    const Communicator& setup_comm = setup ? *setup : comm;
    // format: auto chooses among the assembled formats once the rows are split.
    const OperatorChoice choice =
        spec.format == auto_format_name ? OperatorChoice{&baseline_format(), nullptr} : find_operator(spec.format);
    if (choice.matrix_free()) {
        DistributedSystem<V> out = matrix_free_system<V>(exec, part, spec, *choice.level, comm, setup_comm);
        if (spec.solver.preconditioner->needs.assembled_matrix) keep_assembled_rows(exec, part, spec, setup_comm, out);
        return out;
    }
    const LagrangeDiscretisation<V> disc(part.part.mesh, spec.problem);
    LinearSystem<V> system =
        disc.assemble(exec, choice.format->wide_offsets_asked(spec.format_options) ? CsrOffsets::wide : CsrOffsets::fit);
    exec->synchronize();
    const auto start = clock_type::now();
    if (system.wide_matrix) {
        WideCsr<V> rows = owned_rows(exec, part, spec, setup_comm, std::move(*system.wide_matrix), system);
        system.wide_matrix.reset();
        return from_owned_rows(exec, part, spec, comm, setup_comm, std::move(rows), system, start);
    }
    Csr<V> rows = owned_rows(exec, part, spec, setup_comm, std::move(system.matrix), system);
    return from_owned_rows(exec, part, spec, comm, setup_comm, std::move(rows), system, start);
}

template <typename V>
LinearSystem<V> fv_part_owned_system(const ExecPtr& exec, const PartPayload& part,
                                     const FiniteVolumeDiscretisation<V>& disc)
{
    LinearSystem<V> system = disc.assemble(exec);
    if (system.wide_matrix)
        throw std::runtime_error("finite volumes: a rank's rows have more than 2^31 - 1 non-zeros: run on more ranks");
    const index_type own = part.numbering.layout.owned;
    system.matrix = leading_rows(system.matrix, own);
    system.rhs = leading(system.rhs, static_cast<std::size_t>(own));
    system.initial_guess = leading(system.initial_guess, static_cast<std::size_t>(own));
    exec->synchronize();
    return system;
}

template <typename V>
DistributedSystem<V> build_distributed_fv_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                                 const Communicator& comm, const FiniteVolumeDiscretisation<V>& disc,
                                                 const Communicator* host)
{
    LinearSystem<V> system = fv_part_owned_system(exec, part, disc);
    const auto start = clock_type::now();
    Csr<V> rows = std::move(system.matrix);
    return from_owned_rows(exec, part, spec, comm, host ? *host : comm, std::move(rows), system, start);
}

template <typename V>
DistributedSystem<V> build_distributed_rows_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                                   const Communicator& comm, const Communicator& host,
                                                   LinearSystem<V> owned)
{
    const auto start = clock_type::now();
    Csr<V> rows = std::move(owned.matrix);
    return from_owned_rows(exec, part, spec, comm, host, std::move(rows), owned, start);
}

template <typename V>
Array<V> in_part_order(const DistributedSystem<V>& system, const Array<V>& v)
{
    return permuted(system.permutation, v, true);
}

#define GPUFEM_INSTANTIATE(V)                                                                                \
    template LinearSystem<V> part_owned_system(const ExecPtr&, const PartPayload&, const CaseSpec&,             \
                                               const Communicator&);                                           \
    template LinearSystem<V> fv_part_owned_system(const ExecPtr&, const PartPayload&,                          \
                                                  const FiniteVolumeDiscretisation<V>&);                       \
    template DistributedSystem<V> build_distributed_rows_system(const ExecPtr&, const PartPayload&,            \
                                                                const CaseSpec&, const Communicator&,          \
                                                                const Communicator&, LinearSystem<V>);         \
    template DistributedSystem<V> build_distributed_system(const ExecPtr&, const PartPayload&, const CaseSpec&, \
                                                           const Communicator&, const Communicator*);       \
    template DistributedSystem<V> build_distributed_fv_system(const ExecPtr&, const PartPayload&, const CaseSpec&, \
                                                              const Communicator&,                           \
                                                              const FiniteVolumeDiscretisation<V>&,          \
                                                              const Communicator*);                          \
    template Array<V> in_part_order(const DistributedSystem<V>&, const Array<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
