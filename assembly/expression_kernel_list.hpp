// Expression kernels: an ExpressionProgram evaluated at quadrature points, at nodes and
// inside the error integrals.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/expression_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// out[e * num_points + q] = program at the physical position of quadrature point q
/// of cell e (sum_i N_i(q) x_i over the cell's nodes, from geometry's coordinates and
/// tables, in double). Returns the flat index of the first value that fails check, or -1.
/// cpu: cells in parallel; cuda: one thread per point.
template <typename V>
long long evaluate_at_quadrature_points(const Executor& exec, const ExprInstruction* program,
                                        const ElementData<double>& geometry, ValueCheck check,
                                        V* out) GPUFEM_KERNEL_BODY

/// out[k] = program at coordinates[3 * points[k] ..] for k < n (points == nullptr:
/// point k itself). Returns the first k whose value fails check, or -1.
template <typename V>
long long evaluate_at_points(const Executor& exec, const ExprInstruction* program,
                             const V* coordinates, const index_type* points, index_type n,
                             ValueCheck check, V* out) GPUFEM_KERNEL_BODY

/// The error integrals of the nodal solution u against program over the cells of
/// geometry (its reference tables: the error quadrature), the exact gradient by
/// forward-mode differentiation of program. Per-cell sums, then a deterministic
/// reduction (cpu: in cell order; cuda: CUB's reduction, same order on every run).
/// cuda: one thread per cell.
template <typename V>
ErrorSums error_integrals(const Executor& exec, const ExprInstruction* program,
                          const ElementData<double>& geometry, const V* u) GPUFEM_KERNEL_BODY

/// exact[i] = program at node i of coordinates (3 per node), error[i] = u[i] - exact[i]
/// for i < n; returns max |error| (NaN if any error is NaN).
template <typename V>
double nodal_errors(const Executor& exec, const ExprInstruction* program, const double* coordinates,
                    index_type n, const V* u, double* exact, double* error) GPUFEM_KERNEL_BODY
