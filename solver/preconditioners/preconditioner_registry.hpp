#pragma once
// The preconditioner registry: every preconditioner a case can name (solver.preconditioner)
// registers once — its name and help, what its setup needs from the system, how it is set up
// from a built system, the iteration cost format: auto counts for it, and its memory. The
// case reader, the reference, the pipeline, format: auto, the memory estimate and the
// benchmarks read these entries; none of them compares a preconditioner's name.
//
// Adding a preconditioner: its class (a Preconditioner, solver/krylov/preconditioner.hpp) and
// an entry function in its own files, their declaration and r.add line in
// preconditioner_registry.cpp, its source in solver/CMakeLists.txt (docs/architecture.md).
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "assembly/discretisation.hpp"
#include "linalg/named_registry.hpp"
#include "solver/krylov/preconditioner.hpp"

namespace gpufem {

struct SolverSpec;
template <typename V>
struct DistributedRows;  // solver/multigrid/distributed_amg.hpp

/// What a preconditioner's setup needs from the system beyond its operator.
struct PreconditionerNeeds {
    /// The assembled matrix in the operator's numbering (Galerkin products): a system whose
    /// format keeps no CSR arrays keeps a copy beside its operator.
    bool assembled_matrix = false;
    /// The discretisation's hierarchy of spaces (lower degrees, coarser meshes) and their
    /// transfers.
    bool space_hierarchy = false;
    /// Can take its coarse operators from the element matrices instead of the assembled
    /// matrix, where the discretisation offers them: then a matrix-free operator (or one with
    /// 64-bit row offsets) needs no assembled matrix at all.
    bool element_operators = false;
};

/// What a preconditioner's setup draws on.
template <typename V>
struct PreconditionerSetup {
    const LinearOperator<V>& op;   ///< the system's operator, in its own numbering
    const Csr<V>* matrix;          ///< op's assembled matrix in that numbering, or null
    /// The discretisation behind the system (its spaces and element matrices); null for an
    /// external system.
    const Discretisation<V>* disc;
    /// The operator's numbering of disc's unknowns (op.permutation; empty: the same).
    const Array<index_type>& permutation;
    /// Coarse operators from the element matrices (DiscreteSystem::coarse_from_elements).
    bool coarse_from_elements;
    const SolverSpec& solver;      ///< the case's solver settings (the preconditioners' options)
    /// Under mpirun with more than one rank: op is this rank's rows of the distributed system,
    /// whose entries these are (matrix is then null); null on one process.
    const DistributedRows<V>* distributed;
};

/// A preconditioner as set up, with the steps its setup did before building it.
template <typename V>
struct SetUpPreconditioner {
    std::unique_ptr<Preconditioner<V>> preconditioner;  ///< null: none
    /// Seconds of the steps before the preconditioner's own setup (e.g. "interpolation"),
    /// counted in its setup time by the pipeline.
    std::vector<std::pair<std::string, double>> steps;
};

/// Sets up the preconditioner of value type V.
template <typename V>
using PreconditionerBuilder = SetUpPreconditioner<V> (*)(const PreconditionerSetup<V>& setup);

/// Memory of a preconditioner, in bytes of the operator's executor.
struct PreconditionerMemory {
    double kept = 0;   ///< kept for the solve (hierarchy, diagonal, vectors of the cycle)
    double setup = 0;  ///< the most its setup holds at once beside what it keeps
};

/// One registered preconditioner.
struct PreconditionerEntry {
    std::string name;     ///< as in the case file: solver.preconditioner: <name>
    std::string summary;  ///< what it is, for the reference
    PreconditionerNeeds needs;
    /// The identity (no preconditioner): nothing is set up or applied.
    bool identity = false;
    /// M^-1 is diagonal: the merged solvers fold it into their fused updates (no vector of
    /// its own, no separate apply).
    bool diagonal = false;
    /// Its apply is a multigrid cycle: format: auto counts fine_applies operator products per
    /// apply and assumes assumed_iterations instead of measuring a short run; the
    /// finite-volume correction is solved implicitly with it by default.
    bool multigrid = false;
    /// It works on a system whose rows are split among ranks (gpufem run under mpirun): it
    /// needs nothing but the operator's diagonal, or its setup takes the ranks' rows
    /// (PreconditionerSetup::distributed; an assembled format).
    bool across_ranks = false;
    /// Iterations format: auto assumes for a solve with it (0: measured by a short run).
    double assumed_iterations = 0;
    /// Operator applications on the finest level per apply (0: none), from the solver's options.
    int (*fine_applies)(const SolverSpec& solver) = nullptr;
    PreconditionerBuilder<float> build_float = nullptr;
    PreconditionerBuilder<double> build_double = nullptr;
    /// Its memory for a matrix of shape m (finite_volumes: one row per cell, a few entries).
    PreconditionerMemory (*memory)(const MatrixShape& m, bool finite_volumes) = nullptr;

    /// The builder for value type V.
    template <typename V>
    PreconditionerBuilder<V> builder() const
    {
        if constexpr (std::is_same_v<V, float>) return build_float;
        else return build_double;
    }
    /// Sets it up (null for the identity).
    template <typename V>
    SetUpPreconditioner<V> build(const PreconditionerSetup<V>& setup) const
    {
        return identity ? SetUpPreconditioner<V>{} : builder<V>()(setup);
    }
    /// Whether a system solved with it keeps an assembled matrix beside an operator that does
    /// not hold one: it needs the matrix, unless its coarse operators come from the elements.
    bool keeps_matrix(bool coarse_from_elements) const
    {
        return needs.assembled_matrix && !coarse_from_elements;
    }
    /// Whether it takes its coarse operators from the element matrices: where it can, the
    /// discretisation offers them, and the operator keeps no CSR to form them from
    /// (matrix-free, or 64-bit row offsets).
    bool coarse_from_elements(bool offered, bool operator_without_csr) const
    {
        return needs.element_operators && offered && operator_without_csr;
    }
};

/// The preconditioners, with lookup by name.
class PreconditionerRegistry : public NamedRegistry<PreconditionerEntry> {
public:
    PreconditionerRegistry() : NamedRegistry<PreconditionerEntry>("preconditioner") {}
    /// Adds an entry; throws std::logic_error when its name is taken or it lacks a builder or
    /// its memory.
    void add(PreconditionerEntry entry);
};

/// Every preconditioner gpufem has.
const PreconditionerRegistry& preconditioner_registry();

/// The entry a case gets without solver.preconditioner (none).
const PreconditionerEntry& default_preconditioner();

}  // namespace gpufem
