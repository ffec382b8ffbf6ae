// Finite-volume kernels: the cells' geometry and the matrix pattern (not templated), then
// the assembly, the corrections, the face fluxes and the errors.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/fv_kernels.hpp. No include guard, no includes: it is read once per backend namespace.

/// centroid (3 per cell) and volume of every cell of mesh (fv_cell_shape); returns the
/// first cell whose volume is not > 0, or -1.
GPUFEM_KERNEL_INLINE long long fv_cell_geometry(const Executor& exec, const FvMeshView& mesh,
                                                double* centroid, double* volume) GPUFEM_KERNEL_BODY

/// row_ptr (num_cells + 1) of the matrix: 1 + the neighbours of each cell (the pinned
/// cell: 1; its neighbours lose it). Returns the non-zeros.
GPUFEM_KERNEL_INLINE long long fv_row_offsets(const Executor& exec, const FvMeshView& mesh,
                                              long long pinned, index_type* row_ptr)
    GPUFEM_KERNEL_BODY

/// The largest angle (degrees) between a face's normal and d (centroid to centroid, or
/// to the boundary face's centre) over all faces: 0 on orthogonal meshes.
GPUFEM_KERNEL_INLINE double fv_max_nonorthogonality(
    const Executor& exec, const FvMeshView& mesh) GPUFEM_KERNEL_BODY

/// Columns (increasing) and values of every row (row_ptr from fv_row_offsets) and the
/// right-hand side without the explicit correction: f V + the boundary terms (the
/// pinned cell's too: the caller checks the data's balance, then zeroes it).
template <typename V>
void fv_assemble(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem,
                 const index_type* row_ptr, index_type* cols, V* values, V* rhs) GPUFEM_KERNEL_BODY

/// gradient[3c ..] for the cells c < cells: the least-squares cell gradients of u (which
/// holds every cell's value: a rank's ghost cells' too).
template <typename V>
void fv_cell_gradients(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem,
                       const V* u, long long cells, double* gradient) GPUFEM_KERNEL_BODY

/// rhs[c] for the rows c < rows: base + the explicit non-orthogonal corrections of u with
/// the cell gradients `gradient` (those of every cell a row's faces reach); the pinned
/// cell's: 0.
template <typename V>
void fv_corrected_rows(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem,
                       const V* u, const V* base, const double* gradient, long long rows, V* rhs) GPUFEM_KERNEL_BODY

/// flux[slot] = the outward flux (diffusion, correction with gradient unless null, and
/// convection) through each face of each cell for the solution u.
template <typename V>
void fv_face_fluxes(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem,
                    const V* u, const double* gradient, double* flux) GPUFEM_KERNEL_BODY

/// For the cells c < n: flux[d n + c] = -kappa_c gradient[3c + d] (3 columns of n values), and
/// the integrals in 5 columns of n values: V, V (u + shift_u), V f, V c u (0 without a reaction),
/// 0 (no b . grad u term).
template <typename V>
void fv_flux_integrals(const Executor& exec, long long n, const FvProblemView& problem, const double* volume,
                       const V* u, double shift_u, const double* gradient, double* flux, double* integrals)
    GPUFEM_KERNEL_BODY

/// tag[slot] for every face slot of the mesh's cells: the boundary group g of a boundary face
/// whose group has a condition (conditioned[g] != 0), `others` for a boundary face in no
/// condition's group whose flux[slot] is not 0, and -1 for the rest (interior faces, free faces
/// without flux, the padding slots of cells with fewer faces). Returns how many are `others`.
GPUFEM_KERNEL_INLINE long long fv_boundary_face_tags(const Executor& exec, const FvMeshView& mesh,
                                                     const int* conditioned, int others, const double* flux,
                                                     int* tag) GPUFEM_KERNEL_BODY

/// For each of the n cells c and each of its nodes (negative entries skipped): volume[c] times
/// the flux flux[d n + c] added into sum[3 node + d] (d < 3), and volume[c] into weight[node].
/// cpu: cells in order; cuda: a thread per cell, atomic adds.
GPUFEM_KERNEL_INLINE void fv_node_flux_sums(const Executor& exec, const FvMeshView& mesh, long long n,
                                            const double* flux, double* sum, double* weight) GPUFEM_KERNEL_BODY

/// exact[c] = program at the centroid + shift_exact (program null: 0), error[c] = u[c]
/// + shift_u - exact[c] (either output may be null), and the sums over the cells in
/// cell order (cuda: CUB's reductions, the same order on every run).
template <typename V>
FvErrorSums fv_errors(const Executor& exec, const ExprInstruction* program, const double* centroid,
                      const double* volume, long long n, const V* u, double shift_u,
                      double shift_exact, double* exact, double* error) GPUFEM_KERNEL_BODY
