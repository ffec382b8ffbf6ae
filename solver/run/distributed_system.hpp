#pragma once
// One rank's part of a distributed system: its rows assembled on its device from its part of
// the mesh (finite elements: the Dirichlet columns of ghosts eliminated as on one rank;
// finite volumes: the own cells' rows), and the rows split into a local block (in the case's
// format) and a non-local one behind a halo.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "assembly/fv_discretisation.hpp"
#include "assembly/poisson_assembly.hpp"
#include "linalg/distributed_operator.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/distributed_amg.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"
#include "solver/run/part_payload.hpp"

namespace gpufem {

/// A rank's rows of the system, in the numbering its operator works in.
template <typename V>
struct DistributedSystem {
    std::unique_ptr<DistributedOperator<V>> op;
    /// The operator's numbering of the owned unknowns (new -> part-local index); empty when
    /// the local block's format keeps the part's order.
    Array<index_type> permutation;
    Array<V> rhs;            ///< the owned rows' right-hand side, in the operator's numbering
    Array<V> initial_guess;  ///< Dirichlet values on constrained rows, 0 elsewhere; likewise
    AssemblyTimes assembly_times;  ///< assembling the part (its ghost cells included)
    double operator_seconds = 0;   ///< ghost Dirichlet columns, the split, the local format
    std::size_t local_nnz = 0;     ///< stored entries of the owned rows' owned columns
    std::size_t nonlocal_nnz = 0;  ///< and of their ghost columns
    index_type dirichlet_rows = 0;  ///< constrained owned rows
    RowStats row_stats;             ///< entries per owned row, both blocks together
    bool wide_offsets = false;      ///< the local block has 64-bit row offsets
    std::string format_parameters;
    std::string format;             ///< the local block's format (format: auto's choice)
    nlohmann::json format_choice;   ///< format: auto's decision (null otherwise)
    double format_choice_seconds = 0;
    /// For a preconditioner whose setup reads the entries (AMG): the owned rows' owned
    /// columns (lent_rows: the local block's own CSR arrays where its format keeps them, else
    /// local_rows, a copy) and ghost columns in CSR, and the halo, in the operator's numbering;
    /// empty otherwise.
    const Csr<V>* lent_rows = nullptr;
    /// The local block's own rows when they have 64-bit offsets (past 2^31 - 1 entries, or
    /// format_options.csr.offsets: 64): then lent_rows and local_rows stay empty.
    const WideCsr<V>* lent_wide_rows = nullptr;
    Csr<V> local_rows, ghost_rows;
    HaloPlan halo;
    bool keeps_rows = false;
};

/// What a multigrid setup reads of system's rows (DistributedRows; system.keeps_rows), host
/// and device the ranks for its host data and the operator's; spaces p-multigrid's coarser
/// spaces or null.
template <typename V>
DistributedRows<V> distributed_rows(const DistributedSystem<V>& system, const Communicator& host,
                                    const Communicator& device, const std::vector<PartSpace<V>>* spaces = nullptr)
{
    const Csr<V>& local = system.lent_rows ? *system.lent_rows : system.local_rows;
    return DistributedRows<V>{local, system.ghost_rows, system.halo, host, device, spaces, system.lent_wide_rows};
}

/// The system of part (see the header comment) on exec, its halo through comm. The case's
/// format stores the local block (its own reordering, if any, renumbers the owned unknowns).
/// setup, when given, carries the build's one exchange (the ghosts' Dirichlet data from their
/// owners) instead of comm: MPI there lets the build go on while NCCL is still joining.
template <typename V>
DistributedSystem<V> build_distributed_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                              const Communicator& comm, const Communicator* setup = nullptr);

/// The owned rows of part's system in CSR (owned rows x the part's unknowns, owned then
/// ghosts, in the part's order) with the ghosts' Dirichlet columns eliminated as one rank
/// eliminates them, and the owned rows' right-hand side and initial guess: what a multigrid
/// setup beside a matrix-free operator and --export-matrix read. The ghosts' Dirichlet data
/// through comm (collective). Throws std::invalid_argument past 2^31 - 1 entries.
template <typename V>
LinearSystem<V> part_owned_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                  const Communicator& comm);

/// The own cells' rows of part's finite-volume system from disc (its share's discretisation):
/// own cells x every cell of the share (own, then ghosts), and their right-hand side and
/// initial guess (the uncorrected ones). Throws std::runtime_error past 2^31 - 1 entries.
template <typename V>
LinearSystem<V> fv_part_owned_system(const ExecPtr& exec, const PartPayload& part,
                                     const FiniteVolumeDiscretisation<V>& disc);

/// The finite-volume system of part (a share cut by assembly/fv_part.hpp) from disc, the
/// discretisation of its mesh shared among the ranks (FiniteVolumeDiscretisation::
/// share_among_ranks): the own cells' rows, split and stored as build_distributed_system's.
/// host: the ranks for host data (format: auto's decision), comm when null.
template <typename V>
DistributedSystem<V> build_distributed_fv_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                                 const Communicator& comm, const FiniteVolumeDiscretisation<V>& disc,
                                                 const Communicator* host = nullptr);

/// The system of given owned rows (owned x the part's unknowns, owned then ghosts, with their
/// right-hand side and initial guess; a Matrix Market system's block), split and stored as
/// build_distributed_system's (format: auto chosen across the ranks through host).
template <typename V>
DistributedSystem<V> build_distributed_rows_system(const ExecPtr& exec, const PartPayload& part, const CaseSpec& spec,
                                                   const Communicator& comm, const Communicator& host,
                                                   LinearSystem<V> owned);

/// The owned part of v (in the operator's numbering) in the part's local order.
template <typename V>
Array<V> in_part_order(const DistributedSystem<V>& system, const Array<V>& v);

/// The preconditioner of the case on the distributed operator (one that works across ranks);
/// host and device: the ranks for host data and for the operator's (collective).
/// spaces: p-multigrid's coarser spaces of the part (solver/run/part_spaces.hpp), or null.
template <typename V>
SetUpPreconditioner<V> distributed_preconditioner(const CaseSpec& spec, const DistributedSystem<V>& system,
                                                  const Communicator& host, const Communicator& device,
                                                  const std::vector<PartSpace<V>>* spaces = nullptr)
{
    static const Array<index_type> no_permutation;
    if (!system.keeps_rows)
        return spec.solver.preconditioner->build(
            PreconditionerSetup<V>{*system.op, nullptr, nullptr, no_permutation, false, spec.solver, nullptr});
    const DistributedRows<V> rows = distributed_rows(system, host, device, spaces);
    return spec.solver.preconditioner->build(
        PreconditionerSetup<V>{*system.op, nullptr, nullptr, no_permutation, false, spec.solver, &rows});
}

}  // namespace gpufem
