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
    nonnegative = 3,  ///< finite values >= 0
};

/// Squared error integrals summed over the cells (see compute_errors).
struct ErrorSums {
    double l2 = 0;        ///< sum of w (u - u_h)^2
    double h1 = 0;        ///< sum of w |grad u - grad u_h|^2 (grad u differentiated exactly)
    double l2_exact = 0;  ///< sum of w u^2
};

#define GPUFEM_KERNEL_LIST "assembly/expression_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

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
    if (check == ValueCheck::nonnegative) return value >= 0.0;
    return check != ValueCheck::positive || value > 0.0;
}

}  // namespace gpufem
