#pragma once
// Lagrange finite elements (P1-P4 / Q1-Q4, isoparametric) on the mesh's own nodes: the
// space is the mesh's isoparametric space (assembly/function_space.hpp: its unknowns are the
// mesh's Lagrange nodes, vertices and Gmsh's high-order nodes, at the mesh's order), the system is assemble_poisson's (or a matrix-free operator built from the
// element matrices), a solution is VTU point data and its errors are integrated cell by cell.
#include <vector>

#include "assembly/discretisation.hpp"
#include "assembly/problem_spec.hpp"
#include "mesh/grid_coarsening.hpp"

namespace gpufem {

/// The finite-element discretisation of a problem on a mesh (both must outlive it).
template <typename V>
class LagrangeDiscretisation final : public Discretisation<V> {
public:
    /// The discretisation of problem on mesh (Lagrange elements of mesh.degree). With
    /// first_level_from_factors (the operator makes p-multigrid's first coarse level from its
    /// own factors: OperatorLevelEntry::coarse_level_from_factors) its lower degrees are
    /// pmg_coarse_degrees(degree, through_three) on boxes; with through_degree_two, on
    /// triangles and tetrahedra of degree 3, 3 -> 2 -> 1.
    LagrangeDiscretisation(const Mesh& mesh, const ProblemSpec& problem, bool first_level_from_factors = false,
                           bool through_degree_two = false);
    LagrangeDiscretisation(Mesh&&, const ProblemSpec&, bool = false, bool = false) = delete;  // would dangle
    LagrangeDiscretisation(const Mesh&, ProblemSpec&&, bool = false, bool = false) = delete;

    std::string describe() const override;
    const Mesh& mesh() const override { return mesh_; }
    /// The isoparametric Lagrange space of the mesh: its nodes.
    const FunctionSpace& space() const override { return space_; }
    using Discretisation<V>::assemble;
    LinearSystem<V> assemble(const ExecPtr& exec, CsrOffsets offsets) const override;
    /// The operator of an element-matrix level (lma), built by the level's builder.
    DiscreteSystem<V> assemble_matrix_free(const ExecPtr& exec, const OperatorLevelEntry& level,
                                           const FormatOptions& options) const override;
    /// Degree k -> k/2 -> 1, k -> 3 -> 1 or k -> 1 on the same mesh (pmg_degrees), then down the
    /// refinements by gpufem of a refined mesh (assembly/lagrange_interpolation.hpp).
    std::vector<Csr<V>> pmg_interpolations(const ExecPtr& exec) const override;
    std::vector<std::optional<StructuredGrid>> pmg_coarse_grids() const override;
    /// pa_first_transfer and the chain below it.
    std::optional<PmgMatrixFreeTransfers<V>> pmg_matrix_free_transfers(const ExecPtr& exec) const override;
    /// Degree >= 2, or a generated grid's or refined mesh's h-level (can_coarsen_grid).
    bool has_pmg_coarse_operators() const override
    {
        return !mesh_.is_mixed() && (space_.degree > 1 || can_coarsen_grid(mesh_));  // mixed: no levels yet
    }
    /// The element-wise Galerkin operators of assembly/pmg_coarse_operators.hpp (from op's
    /// storage when it is an lma operator with its cells in their own order).
    std::vector<Csr<V>> pmg_coarse_operators(const ExecPtr& exec, const LinearOperator<V>* op = nullptr,
                                             bool first_given = false) const override;
    /// u as point data; with problem.exact also u_exact, error (u - u_exact) and the norms.
    SolutionOutput solution_output(const Array<V>& u) const override;
    /// On a mesh with GLL nodes (mesh/gll_output.hpp).
    bool give_equispaced_point_fields() override;

private:
    bool equispaced_points_ = false;
    const Mesh& mesh_;
    FunctionSpace space_;
    const ProblemSpec& problem_;
    std::vector<int> pmg_degrees_;  ///< the lower degrees p-multigrid passes through, finest first
};

}  // namespace gpufem
