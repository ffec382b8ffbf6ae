#pragma once
// The partial-assembly (`pa`) system of a problem: the sum-factorised operator, the eliminated
// right-hand side and the initial guess, equal to what assemble_poisson gives with its CSR
// matrix.
#include "assembly/boundary_data.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/pa_operator.hpp"

namespace gpufem {

/// The sum-factorised operator with the system it belongs to.
template <typename V>
struct PaSystem {
    std::unique_ptr<PaOperator<V>> op;
    Array<V> rhs;            ///< element and Neumann loads, Dirichlet conditions eliminated
    Array<V> initial_guess;  ///< Dirichlet values on constrained nodes, 0 elsewhere
    index_type dirichlet_count = 0;
    /// geometry and coefficients as for lma; values: the point factors, loads and diagonal;
    /// boundary: Neumann load and Dirichlet elimination.
    AssemblyTimes times;
};

/// Builds the problem's sum-factorised system on exec for a mesh of quadrilaterals or
/// hexahedra (one cell type, any supported degree): the factors at the assembly rule's
/// points, the loads, the Neumann load, the Robin facets' matrices and loads, and the
/// Dirichlet elimination (assemble_poisson's system, to rounding). Throws
/// std::invalid_argument naming the format for other cell types and mixed meshes, and naming
/// the problem key on bad coefficients or unknown groups. adjust changes the Dirichlet data
/// before the elimination (a rank's part).
template <typename V>
PaSystem<V> assemble_pa_system(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                               const DirichletAdjustment<V>& adjust = {});

}  // namespace gpufem
