#pragma once
// The finite-volume discretisation's memory model (one unknown per cell, two-point fluxes
// with the non-orthogonal correction): its matrix before assembly, the face adjacency, the
// cells' geometry and coefficients, the correction's gradients, its errors and its output.
#include "assembly/discretisation_memory.hpp"
#include "assembly/fv_discretisation.hpp"
#include "assembly/problem_spec.hpp"

namespace gpufem {

/// The finite-volume matrix of a mesh of these counts: a row per cell with the cell and its
/// face neighbours (at most: a boundary face has no neighbour), values of value_bytes.
MatrixShape fv_matrix_shape(const MeshCounts& mesh, double value_bytes);

/// The finite-volume discretisation's memory for a run on mesh with problem and options, its
/// matrix of shape m (fv_matrix_shape) and the run's choices. The preconditioner's arrays per
/// row weigh more than the finite elements' (5 entries a row on tetrahedra, 27 on Q1
/// hexahedra); its entry's memory for finite volumes accounts for that. Calibrated on
/// `fv_cube_tets_4m` (H100).
DiscretisationMemory fv_memory(const MeshCounts& mesh, const ProblemSpec& problem, const FvOptions& options,
                               const MatrixShape& m, const MemoryChoices& choices);

}  // namespace gpufem
