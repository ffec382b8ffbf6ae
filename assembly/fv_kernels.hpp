#pragma once
// Finite-volume kernels (fv_geometry.hpp's arithmetic over all cells), declared once,
// implemented in cpu/fv_kernels.cpp and cuda/fv_kernels.cu. Every cell gathers its own faces:
// no atomics, the same numbers on every run.
#include "assembly/fv_geometry.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// Sums over the cells for the cell-centred errors (see fv_errors).
struct FvErrorSums {
    double volume = 0;     ///< sum V
    double u = 0;          ///< sum V u (shifted)
    double exact = 0;      ///< sum V u_exact (shifted)
    double l2 = 0;         ///< sum V (u - u_exact)^2
    double l2_exact = 0;   ///< sum V u_exact^2
    double max_error = 0;  ///< max |u - u_exact| (NaN if any is)
};

#define GPUFEM_FV_GEOMETRY_KERNELS(PREFIX, BODY)                                             \
    /** centroid (3 per cell) and volume of every cell of mesh (fv_cell_shape); returns the  \
        first cell whose volume is not > 0, or -1. */                                        \
    PREFIX long long fv_cell_geometry(const Executor& exec, const FvMeshView& mesh,          \
                                      double* centroid, double* volume) BODY                 \
    /** row_ptr (num_cells + 1) of the matrix: 1 + the neighbours of each cell (the pinned   \
        cell: 1; its neighbours lose it). Returns the non-zeros. */                          \
    PREFIX long long fv_row_offsets(const Executor& exec, const FvMeshView& mesh,            \
                                    long long pinned, index_type* row_ptr) BODY             \
    /** The largest angle (degrees) between a face's normal and d (centroid to centroid, or  \
        to the boundary face's centre) over all faces: 0 on orthogonal meshes. */            \
    PREFIX double fv_max_nonorthogonality(const Executor& exec, const FvMeshView& mesh) BODY

#define GPUFEM_FV_KERNELS(V, PREFIX, BODY)                                                   \
    /** Columns (increasing) and values of every row (row_ptr from fv_row_offsets) and the   \
        right-hand side without the explicit correction: f V + the boundary terms (the       \
        pinned cell's too: the caller checks the data's balance, then zeroes it). */        \
    PREFIX void fv_assemble(const Executor& exec, const FvMeshView& mesh,                    \
                            const FvProblemView& problem, const index_type* row_ptr,         \
                            index_type* cols, V* values, V* rhs) BODY                        \
    /** rhs = base + the explicit non-orthogonal corrections of u (the pinned cell: 0);      \
        gradient: 3 per cell, written (the least-squares cell gradients of u). */             \
    PREFIX void fv_corrected_rhs(const Executor& exec, const FvMeshView& mesh,               \
                                 const FvProblemView& problem, const V* u, const V* base,    \
                                 double* gradient, V* rhs) BODY                              \
    /** flux[slot] = the outward flux (diffusion, correction with gradient unless null, and  \
        convection) through each face of each cell for the solution u. */                   \
    PREFIX void fv_face_fluxes(const Executor& exec, const FvMeshView& mesh,                 \
                               const FvProblemView& problem, const V* u,                     \
                               const double* gradient, double* flux) BODY                    \
    /** exact[c] = program at the centroid + shift_exact (program null: 0), error[c] = u[c]  \
        + shift_u - exact[c] (either output may be null), and the sums over the cells in     \
        cell order (cuda: CUB's reductions, the same order on every run). */                 \
    PREFIX FvErrorSums fv_errors(const Executor& exec, const ExprInstruction* program,       \
                                 const double* centroid, const double* volume, long long n,  \
                                 const V* u, double shift_u, double shift_exact,             \
                                 double* exact, double* error) BODY

GPUFEM_DECLARE_PLAIN_KERNELS(GPUFEM_FV_GEOMETRY_KERNELS)
GPUFEM_DECLARE_KERNELS(GPUFEM_FV_KERNELS)

}  // namespace gpufem
