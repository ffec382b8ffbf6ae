#pragma once
// Expression kernels: an ExpressionProgram (expression_program.hpp, already on the executor)
// evaluated at quadrature points, at nodes, and inside the error integrals — declared once,
// implemented in cpu/expression_kernels.cpp and cuda/expression_kernels.cu.
#include "assembly/element_data.hpp"
#include "assembly/expression.hpp"
#include "assembly/expression_program.hpp"
#include "linalg/array.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// Which values an evaluation accepts; the first (lowest-index) value that fails is returned.
enum class ValueCheck : int {
    none = 0,      ///< anything
    finite = 1,    ///< finite values
    positive = 2,  ///< finite values > 0
};

/// Squared error integrals summed over the cells (see compute_errors).
struct ErrorSums {
    double l2 = 0;        ///< sum of w (u - u_h)^2
    double h1 = 0;        ///< sum of w |grad u - grad u_h|^2 (grad u differentiated exactly)
    double l2_exact = 0;  ///< sum of w u^2
};

#define GPUFEM_EXPRESSION_KERNELS(V, PREFIX, BODY)                                           \
    /** out[e * num_points + q] = program at the physical position of quadrature point q    \
        of cell e (sum_i N_i(q) x_i over the cell's nodes, from geometry's coordinates and  \
        tables, in double). Returns the flat index of the first value that fails check, or -1.     \
        cpu: cells in parallel; cuda: one thread per point. */                              \
    PREFIX long long evaluate_at_quadrature_points(                                          \
        const Executor& exec, const ExprInstruction* program,                                  \
        const ElementData<double>& geometry, ValueCheck check, V* out) BODY                  \
    /** out[k] = program at coordinates[3 * points[k] ..] for k < n (points == nullptr:     \
        point k itself). Returns the first k whose value fails check, or -1. */             \
    PREFIX long long evaluate_at_points(const Executor& exec, const ExprInstruction* program, \
                                        const V* coordinates, const index_type* points,      \
                                        index_type n, ValueCheck check, V* out) BODY         \
    /** The error integrals of the nodal solution u against program over the cells of       \
        geometry (its reference tables: the error quadrature), the exact gradient by        \
        forward-mode differentiation of program. Per-cell sums, then a deterministic        \
        reduction (cpu: in cell order; cuda: CUB's reduction, same order on every run).     \
        cuda: one thread per cell. */                                                       \
    PREFIX ErrorSums error_integrals(const Executor& exec, const ExprInstruction* program,    \
                                     const ElementData<double>& geometry, const V* u) BODY   \
    /** exact[i] = program at node i of coordinates (3 per node), error[i] = u[i] - exact[i] \
        for i < n; returns max |error| (NaN if any error is NaN). */                         \
    PREFIX double nodal_errors(const Executor& exec, const ExprInstruction* program,         \
                               const double* coordinates, index_type n, const V* u,          \
                               double* exact, double* error) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_EXPRESSION_KERNELS)

/// The expression's program uploaded to exec (a few hundred bytes), for the kernels above.
inline Array<ExprInstruction> program_on(const ExecPtr& exec, const Expression& expression)
{
    return Array<ExprInstruction>::from_host(exec, expression.program().code);
}

/// True if value passes check (shared by both backends).
GPUFEM_HOST_DEVICE inline bool passes(ValueCheck check, double value)
{
    if (check == ValueCheck::none) return true;
    if (!(value - value == 0.0)) return false;  // NaN or infinite
    return check != ValueCheck::positive || value > 0.0;
}

}  // namespace gpufem
