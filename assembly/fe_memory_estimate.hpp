#pragma once
// The finite-element discretisation's memory model (Lagrange elements of degree 1-4 on
// generated or read meshes): its matrix before assembly, its assembly's geometry, coefficients
// and CSR pattern, the coarser spaces it gives p-multigrid, its error norms and its output.
#include "assembly/discretisation_memory.hpp"
#include "assembly/problem_spec.hpp"

namespace gpufem {

/// The finite-element matrix as estimated from the mesh's counts, and whether its count of
/// non-zeros is exact.
struct FeMatrixEstimate {
    MatrixShape shape;
    bool nnz_exact = false;  ///< exact for the generated unit square and cube
};

/// The matrix of the Lagrange space on a mesh of these counts, values of value_bytes.
FeMatrixEstimate fe_matrix_estimate(const MeshCounts& mesh, double value_bytes);

/// Whether the discretisation offers coarse operators from its element matrices on such a
/// mesh (degree >= 2, a generated grid it can halve, or a mesh gpufem refined); a mesh of
/// several cell types offers none (its pmg is AMG on the matrix).
bool fe_offers_element_coarse_operators(const MeshCounts& mesh);

/// The finite-element discretisation's memory for a run on mesh with problem, its matrix of
/// shape m (fe_matrix_estimate) and the run's choices.
DiscretisationMemory fe_memory(const MeshCounts& mesh, const ProblemSpec& problem, const MatrixShape& m,
                               const MemoryChoices& choices);

}  // namespace gpufem
