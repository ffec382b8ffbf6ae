#pragma once
// Conjugate gradients, plain form: one kernel per vector operation, the host reading each dot.
#include <string>
#include <vector>

#include "linalg/interval_timer.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// Why a Krylov solve stopped.
enum class SolveStatus { converged, max_iterations, breakdown, not_finite };

/// "converged", "max_iterations", "breakdown", "not_finite"
const char* solve_status_name(SolveStatus status);

/// Stopping rule: ||b - A x_k|| <= tolerance ||b||, at most max_iterations iterations.
struct SolveOptions {
    double tolerance = 1e-8;
    int max_iterations = 10000;
};

/// Outcome of a solve.
struct SolveResult {
    SolveStatus status = SolveStatus::max_iterations;
    int iterations = 0;
    double initial_residual = 0;            ///< ||b - A x0||
    double rhs_norm = 0;                    ///< ||b||
    double relative_residual = 0;           ///< final ||r|| / ||b|| (recursive residual)
    std::vector<double> residual_history;   ///< ||r_k|| / ||b||, k = 0..iterations
    std::string message;                    ///< human-readable account (what went wrong, a hint)
    bool converged() const { return status == SolveStatus::converged; }
};

/// Solves A x = b for symmetric positive definite A, x holding the initial guess on entry.
/// If spmv_timer is given, each iteration's SpMV is timed with it. Breakdown (p.Ap <= 0) and
/// NaN/Inf are reported with the iteration number instead of returning garbage silently.
template <typename V>
SolveResult cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
               const SolveOptions& options, IntervalTimer* spmv_timer = nullptr);

}  // namespace gpufem
