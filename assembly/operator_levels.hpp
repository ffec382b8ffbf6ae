#pragma once
// Operator levels: how far the operator is assembled. At the assembled level the matrix is
// assembled into CSR and stored in a format of linalg's registry (assembled_formats()); the
// levels registered here are built by the discretisation without an assembled matrix —
// element matrices (lma) and partial assembly with sum factorisation (pa). A format registers what a format is
// (FormatEntry), a level what a level is (OperatorLevelEntry), each in its own registry; a
// case's `format:` names either, and find_operator says which.
//
// Adding a level: its entry function in its own file, its declaration and r.add line in
// operator_levels.cpp, its sources in assembly/CMakeLists.txt (docs/architecture.md).
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "assembly/boundary_data.hpp"
#include "assembly/discretisation.hpp"
#include "assembly/part_system.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/format_registry.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Builds an operator level's system from the finite-element mesh and problem on exec: the
/// operator (with its diagonal), the right-hand side and initial guess of the assembled
/// system (Dirichlet conditions eliminated the same way).
template <typename V>
using ElementOperatorBuilder = DiscreteSystem<V> (*)(const ExecPtr& exec, const Mesh& mesh,
                                                     const ProblemSpec& problem,
                                                     const FormatOptions& options);

/// Builds an operator level's system on one rank's part of a distributed problem (mesh: the
/// part's mesh, nodes 0 .. owned - 1 owned), split at the halo (assembly/part_system.hpp);
/// owners_dirichlet gives the ghosts' Dirichlet data as their owners have it.
template <typename V>
using PartOperatorBuilder = PartMatrixFreeSystem<V> (*)(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                                        const ProblemSpec& problem, const FormatOptions& options,
                                                        const DirichletAdjustment<V>& owners_dirichlet);

/// One registered operator level: built by a discretisation from its elements.
struct OperatorLevelEntry : OperatorEntryBase {
    ElementOperatorBuilder<float> build_float = nullptr;
    ElementOperatorBuilder<double> build_double = nullptr;
    /// Whether, with these options, the built operator gives p-multigrid's element-wise coarse
    /// operators itself (Discretisation::pmg_coarse_operators): it keeps every cell's element
    /// matrix in the mesh's cell order (lma, atomic scatter), or computes each cell's product
    /// from what it stores (pa), so that no element matrices are made for them; null: never.
    bool (*keeps_element_matrices)(const FormatOptions& options) = nullptr;
    /// Whether the built operator makes p-multigrid's first coarse level from its own data,
    /// without a stored matrix (pa: from its quadrature-point factors, assembly/pa_coarse_level.hpp),
    /// so that a finer first coarse degree costs no setup (LagrangeDiscretisation's degrees).
    bool coarse_level_from_factors = false;
    /// Its builders on a rank's part under mpirun; null: it runs on one rank only.
    PartOperatorBuilder<float> build_part_float = nullptr;
    PartOperatorBuilder<double> build_part_double = nullptr;

    /// The builder for value type V.
    template <typename V>
    ElementOperatorBuilder<V> builder() const
    {
        if constexpr (std::is_same_v<V, float>) return build_float;
        else return build_double;
    }
    /// The part builder for value type V (null where it runs on one rank only).
    template <typename V>
    PartOperatorBuilder<V> part_builder() const
    {
        if constexpr (std::is_same_v<V, float>) return build_part_float;
        else return build_part_double;
    }
    /// Whether a run under mpirun builds it on each rank's part (split at the halo).
    bool across_ranks() const { return build_part_double != nullptr; }
    /// Whether the operator built with options keeps the element matrices (see above).
    bool keeps_element_matrices_with(const FormatOptions& options) const
    {
        return keeps_element_matrices && keeps_element_matrices(options);
    }
};

/// The operator levels, with lookup by name.
using OperatorLevelRegistry = NamedRegistry<OperatorLevelEntry>;

/// Every operator level built without an assembled matrix (lma, pa).
const OperatorLevelRegistry& operator_levels();

/// What a case's `format:` names: a storage format of the assembled matrix, or an operator
/// level built without one. Exactly one of the two is set.
struct OperatorChoice {
    const FormatEntry* format = nullptr;       ///< assembled: the matrix's storage format
    const OperatorLevelEntry* level = nullptr; ///< built without an assembled matrix
    /// What both register (name, options, backends, memory, variants).
    const OperatorEntryBase& entry() const
    {
        return format ? static_cast<const OperatorEntryBase&>(*format) : *level;
    }
    const std::string& name() const { return entry().name; }
    /// True for a level built without an assembled matrix.
    bool matrix_free() const { return level != nullptr; }
};

/// The system of disc with the chosen operator on exec: the assembled matrix converted into
/// the format (convert_system), or the level's operator built by the discretisation. The one
/// place that chooses. keep_matrix: also keep the assembled matrix in the operator's
/// numbering (DiscreteSystem::assembled; a level then assembles it as well).
template <typename V>
DiscreteSystem<V> build_system(const ExecPtr& exec, const Discretisation<V>& disc, const OperatorChoice& choice,
                               const FormatOptions& options, bool keep_matrix = false);

/// The format or level named name; throws std::invalid_argument listing every name.
OperatorChoice find_operator(std::string_view name);
/// The format or level named name, or an empty choice (neither set) when there is none.
OperatorChoice lookup_operator(std::string_view name);
/// Every format's and level's entry, formats first (the reference's and benchmarks' order).
std::vector<std::reference_wrapper<const OperatorEntryBase>> operator_entries();
/// Their names, in the same order.
std::vector<std::string> operator_names();
/// "csr, ell, ..., lma" for messages.
std::string joined_operator_names();

}  // namespace gpufem
