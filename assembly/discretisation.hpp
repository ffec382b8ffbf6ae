#pragma once
// The discretisation boundary: a discretisation turns a mesh and a problem into a linear
// system (the operator in a chosen format, the right-hand side, an initial guess) and
// describes its unknowns (a space: assembly/function_space.hpp), how a solution is written to
// the VTU and how its error against an exact solution is measured. Finite elements today
// (lagrange_discretisation.hpp); finite volumes, with unknowns on cells, plug in beside them.
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "assembly/error_norms.hpp"
#include "assembly/flux_report.hpp"
#include "assembly/function_space.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/rhs_correction.hpp"
#include "linalg/format_build.hpp"
#include "linalg/transfer_operators.hpp"
#include <nlohmann/json.hpp>
#include "mesh/mesh.hpp"
#include "mesh/structured_grid.hpp"
#include "mesh/vtk_writer.hpp"

namespace gpufem {

/// Statistics of an assembled matrix.
struct MatrixStats {
    index_type rows = 0;   ///< rows (= columns)
    std::size_t nnz = 0;   ///< stored entries
    RowStats row_stats;    ///< entries per row: min, mean, max
};

template <typename V>
class Discretisation;
struct OperatorLevelEntry;

/// A linear system ready for the solver: the operator in its format (with the numbering it
/// works in, see FormatBuild::permutation), and the right-hand side and initial guess in the
/// original numbering of the unknowns.
template <typename V>
struct DiscreteSystem {
    FormatBuild<V> op;
    std::string format;              ///< the format's name (format: auto: the one chosen)
    /// format: auto's decision (candidates and times) and what it took; null otherwise.
    nlohmann::json format_choice;
    double format_choice_seconds = 0;
    Array<V> rhs;
    Array<V> initial_guess;
    index_type dirichlet_count = 0;  ///< constrained unknowns (0: a singular Neumann problem)
    AssemblyTimes assembly_times;
    double operator_seconds = 0;     ///< conversion into the format (0 when assembly built it)
    std::optional<MatrixStats> matrix;  ///< when a matrix was assembled (not matrix-free)
    /// The operator's matrix has 64-bit row offsets (past 2^31 - 1 entries, or asked for):
    /// it keeps no CSR a preconditioner could read (stored_csr), so pmg takes its coarse
    /// operators from the element matrices as for a matrix-free format, and amg is refused.
    bool wide_offsets = false;
    /// The assembled matrix in the operator's numbering, kept beside the operator when a
    /// preconditioner is built from it (AMG) and the operator does not hold it itself; empty
    /// otherwise. preconditioner_matrix() gives whichever holds it.
    std::optional<Csr<V>> assembled;
    /// The discretisation that built the system, whose spaces and element matrices a
    /// preconditioner's setup may draw on (p-multigrid); it must outlive the system's solves.
    /// Null for a system built without one.
    const Discretisation<V>* discretisation = nullptr;
    /// A preconditioner's coarse operators come from the element matrices
    /// (Discretisation::pmg_coarse_operators) instead of the assembled matrix, which the
    /// system then does not keep (matrix-free operators, 64-bit row offsets).
    bool coarse_from_elements = false;

    /// The assembled matrix in the operator's numbering for a preconditioner: the kept copy,
    /// or the operator's own CSR arrays (csr, csr-scalar, cusparse), or nullptr.
    const Csr<V>* preconditioner_matrix() const
    {
        if (assembled) return &*assembled;
        return op.op ? op.op->stored_csr() : nullptr;
    }
};

/// A solution as written out: VTU fields and, with an exact solution, the errors; with flux
/// output its fluxes, integrals and balance (the fields flux_x, flux_y, flux_z among the
/// point and cell fields).
struct SolutionOutput {
    std::vector<MeshField> point_fields;
    std::vector<MeshField> cell_fields;
    std::optional<ErrorNorms> errors;
    std::optional<FluxReport> fluxes;
    /// Whether the point fields are at the equispaced points of the mesh's cells
    /// (Discretisation::give_equispaced_point_fields), not at its nodes.
    bool point_fields_equispaced = false;
};

/// p-multigrid's transfers with the first applied without a stored matrix: that one as
/// operators, the chain's others (from the second) stored, as pmg_interpolations gives them.
template <typename V>
struct PmgMatrixFreeTransfers {
    TransferOperators<V> first;
    std::vector<Csr<V>> below;
};

/// Mesh + problem -> linear system; solution -> output fields and errors; a right-hand side
/// that depends on the solution where the discretisation has one (finite volumes).
template <typename V>
class Discretisation : public RhsCorrection<V> {
public:
    virtual ~Discretisation() = default;

    /// What it is, for logs ("Lagrange finite elements of degree 2").
    virtual std::string describe() const = 0;
    /// The mesh it discretises.
    virtual const Mesh& mesh() const = 0;
    /// The space of its systems' unknowns (the rows of its systems, in its numbering).
    virtual const FunctionSpace& space() const = 0;
    /// The assembled system (CSR matrix, right-hand side, initial guess) on exec; offsets:
    /// fit gives LinearSystem::wide_matrix only past 2^31 - 1 entries (where the
    /// discretisation can assemble one: finite elements), wide always.
    virtual LinearSystem<V> assemble(const ExecPtr& exec, CsrOffsets offsets) const = 0;
    /// assemble(exec, CsrOffsets::fit).
    LinearSystem<V> assemble(const ExecPtr& exec) const { return assemble(exec, CsrOffsets::fit); }
    /// The system with the operator of an operator level built without an assembled matrix
    /// (assembly/operator_levels.hpp) on exec. Throws std::invalid_argument when this
    /// discretisation does not offer that level.
    virtual DiscreteSystem<V> assemble_matrix_free(const ExecPtr& exec, const OperatorLevelEntry& level,
                                                   const FormatOptions& options) const = 0;
    /// p-multigrid's transfers from lower-degree spaces of the same mesh, finest first (the
    /// first's rows: this discretisation's unknowns in the original numbering), on exec; at
    /// degree 1 the transfer from a nested coarser mesh where the discretisation has one
    /// (an h-level); empty when there is no coarser space.
    virtual std::vector<Csr<V>> pmg_interpolations(const ExecPtr& exec) const = 0;
    /// The coarse grid of each of pmg_interpolations' transfers where it is a level down a
    /// generated grid (its columns the grid's node numbers), nullopt elsewhere; empty when
    /// none is.
    virtual std::vector<std::optional<StructuredGrid>> pmg_coarse_grids() const { return {}; }
    /// pmg_interpolations with the first transfer applied by sum factorisation (the mesh's
    /// degree to the next lower one on quadrilaterals or hexahedra, assembly/pa_transfer.hpp),
    /// on exec; nullopt where not offered.
    virtual std::optional<PmgMatrixFreeTransfers<V>> pmg_matrix_free_transfers(const ExecPtr& /*exec*/) const
    {
        return std::nullopt;
    }
    /// Whether pmg_coarse_operators can build p-multigrid's coarse operators from the element
    /// matrices (no assembled finest matrix needed).
    virtual bool has_pmg_coarse_operators() const { return false; }
    /// The operators of the pmg_interpolations' coarse spaces, finest first, from the element
    /// matrices (assembly/pmg_coarse_operators.hpp), on exec; empty when not offered. op: the
    /// system's operator, whose stored element matrices are read when it keeps them (lma).
    /// first_given: the first coarse space's operator is made without a matrix
    /// (assembly/pa_coarse_level.hpp), an empty matrix stands in its place.
    virtual std::vector<Csr<V>> pmg_coarse_operators(const ExecPtr& /*exec*/,
                                                     const LinearOperator<V>* /*op*/ = nullptr,
                                                     bool /*first_given*/ = false) const
    {
        return {};
    }
    /// The output of a solution u (space().size() values in the original numbering, on the
    /// executor that solved): its fields and, when the problem has an exact solution, the
    /// exact values, the error and the error norms, computed on u's executor.
    virtual SolutionOutput solution_output(const Array<V>& u) const = 0;
    /// What it wants to say in report.json ("discretisation"), or null.
    virtual nlohmann::json report() const { return nullptr; }
    /// Whether solution_output computes the fluxes (SolutionOutput::fluxes and the flux
    /// fields; on by default), where the discretisation can, and whether the flux fields are
    /// written as Float32 (MeshField::float32; by default).
    void set_flux_output(bool on, bool float32_fields = true)
    {
        flux_output_ = on;
        flux_fields_float32_ = float32_fields;
    }
    bool flux_output() const { return flux_output_; }
    /// Asks solution_output for its point fields at the equispaced points of cells with GLL
    /// nodes, as VTK's Lagrange cells read them, converted where they are computed (on the
    /// device for a CUDA run); returns whether it will (none by default).
    virtual bool give_equispaced_point_fields() { return false; }
    bool flux_fields_float32() const { return flux_fields_float32_; }
    /// Called by solution_output with the solution's point field as soon as it is on the host,
    /// before the fields computed from it (the fluxes, the errors), so that its writing can
    /// start meanwhile (where the discretisation's solution is a point field; none by default).
    void set_solution_ready(std::function<void(const MeshField&)> ready) { solution_ready_ = std::move(ready); }
    /// Called by solution_output with the cells' flux fields as soon as they are on the host,
    /// before the point fields (the same purpose; where the discretisation has them first).
    void set_cell_fields_ready(std::function<void(std::span<const MeshField>)> ready)
    {
        cell_fields_ready_ = std::move(ready);
    }
    /// The corrected right-hand side (RhsCorrection) of a discretisation that solves once.
    Array<V> corrected_rhs(const Array<V>& /*u*/) const override
    {
        throw std::logic_error("corrected_rhs: " + describe() + " solves once");
    }

protected:
    /// Hands u to the set_solution_ready callback, if any.
    void solution_is_ready(const MeshField& u) const
    {
        if (solution_ready_) solution_ready_(u);
    }
    /// The cell fields' callback (empty when none was set).
    const std::function<void(std::span<const MeshField>)>& cell_fields_ready() const { return cell_fields_ready_; }

private:
    bool flux_output_ = true;
    bool flux_fields_float32_ = true;
    std::function<void(const MeshField&)> solution_ready_;
    std::function<void(std::span<const MeshField>)> cell_fields_ready_;
};

/// disc's p-multigrid transfers (Discretisation::pmg_interpolations) with the first's rows in
/// the operator's numbering: permuted by the system's reordering (empty: none).
template <typename V>
std::vector<Csr<V>> pmg_interpolations_in_order(const Discretisation<V>& disc,
                                                const Array<index_type>& permutation, const ExecPtr& exec);

/// The system of an assembled matrix converted into the assembled format (the matrix is
/// moved into the format unless keep_matrix; build_system's second branch).
template <typename V>
DiscreteSystem<V> convert_system(LinearSystem<V> assembled, const FormatEntry& format,
                                 const FormatOptions& options, bool keep_matrix = false);

}  // namespace gpufem
