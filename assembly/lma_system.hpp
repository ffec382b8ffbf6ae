#pragma once
// The matrix-free (`lma`) system of a problem, built from the element matrices and loads
// without forming the global matrix: the LMA operator, the eliminated right-hand side and the
// initial guess, equal to what assemble_poisson gives with its CSR matrix.
#include <functional>

#include "assembly/boundary_data.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/format_build.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The LMA operator with the system it belongs to.
template <typename V>
struct LmaSystem {
    /// op: the LmaOperator (the assembled matrix after symmetric Dirichlet elimination, its
    /// diagonal attached), no permutation; convert_seconds: wall time of the whole build;
    /// host_steps: "element colouring (greedy)" for the colour scatter.
    FormatBuild<V> format;
    Array<V> rhs;            ///< element and Neumann loads, Dirichlet conditions eliminated
    Array<V> initial_guess;  ///< Dirichlet values on constrained nodes, 0 elsewhere
    index_type dirichlet_count = 0;
    /// geometry: the mesh on the executor and its check; coefficients: kappa and f on the
    /// executor; pattern: the operator's layout (colouring, interleaving, diagonal); values:
    /// element kernels and the load scatter; boundary: Neumann load and Dirichlet elimination.
    AssemblyTimes times;
};

/// Computes every cell's element matrix and load on exec (element kernels of the mesh's
/// order), keeps the matrices as an LMA operator and scatters the loads, adds the Neumann
/// load and eliminates the Dirichlet conditions: rhs_i = a_ii g_i on Dirichlet rows,
/// rhs_i -= sum over Dirichlet j of a_ij g_j on the others (assemble_poisson's system, to
/// rounding). Throws naming the problem key on bad coefficients or unknown groups, and for
/// symmetric storage with a convection term (non-symmetric element matrices). adjust, when
/// given, changes the Dirichlet data first. colour_split (colour scatter, -1: none): the cells
/// before it in the mesh's order are coloured apart from the others (make_lma_operator; per
/// cell type on a mixed mesh).
template <typename V>
LmaSystem<V> assemble_lma_system(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                 const LmaOptions& options, const DirichletAdjustment<V>& adjust = {},
                                 index_type colour_split = -1);

}  // namespace gpufem
