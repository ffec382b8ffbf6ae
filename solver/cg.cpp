#include "solver/cg.hpp"

#include <cmath>

#include <fmt/format.h>

#include "linalg/blas1.hpp"

namespace gpufem {

const char* solve_status_name(SolveStatus status)
{
    switch (status) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::breakdown: return "breakdown";
    case SolveStatus::not_finite: return "not_finite";
    }
    return "unknown";
}

template <typename V>
SolveResult cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
               const SolveOptions& options, IntervalTimer* spmv_timer)
{
    const ExecPtr& exec = a.executor();
    const std::size_t n = b.size();
    SolveResult result;
    Array<V> r(exec, n), p(exec, n), ap(exec, n);

    auto timed_apply = [&](const Array<V>& in, Array<V>& out) {
        if (spmv_timer) spmv_timer->start();
        a.apply(in, out);
        if (spmv_timer) spmv_timer->stop();
    };

    // r = b - A x
    a.apply(x, r);
    xpay(b, V(-1), r);
    result.rhs_norm = nrm2(b);
    double rr = dot(r, r);
    result.initial_residual = std::sqrt(rr);
    if (result.rhs_norm == 0.0) {
        // b = 0: the solution is x = 0 (any x with A x = 0 for a singular A).
        fill(x, V(0));
        result.status = SolveStatus::converged;
        result.residual_history = {0.0};
        result.message = "right-hand side is zero: solution is zero";
        return result;
    }
    const double scale = 1.0 / result.rhs_norm;
    result.relative_residual = result.initial_residual * scale;
    result.residual_history.push_back(result.relative_residual);
    if (!std::isfinite(rr)) {
        result.status = SolveStatus::not_finite;
        result.message = "initial residual is not finite (NaN/Inf in the matrix, rhs or guess)";
        return result;
    }
    if (result.relative_residual <= options.tolerance) {
        result.status = SolveStatus::converged;
        result.message = "initial guess already satisfies the tolerance";
        return result;
    }

    p.copy_from(r);
    for (int k = 1; k <= options.max_iterations; ++k) {
        timed_apply(p, ap);
        const double pap = dot(p, ap);
        if (!std::isfinite(pap)) {
            result.status = SolveStatus::not_finite;
            result.iterations = k;
            result.message = fmt::format("p.Ap is {} at iteration {}", pap, k);
            return result;
        }
        if (pap <= 0.0) {
            result.status = SolveStatus::breakdown;
            result.iterations = k;
            result.message = fmt::format(
                "breakdown at iteration {}: p.Ap = {:.3e} <= 0, the matrix is not positive "
                "definite (a missing Dirichlet condition, a negative kappa, or a non-symmetric "
                "system: try BiCGSTAB)",
                k, pap);
            return result;
        }
        const V alpha = static_cast<V>(rr / pap);
        axpy(alpha, p, x);
        axpy(-alpha, ap, r);
        const double rr_new = dot(r, r);
        result.iterations = k;
        result.relative_residual = std::sqrt(rr_new) * scale;
        result.residual_history.push_back(result.relative_residual);
        if (!std::isfinite(rr_new)) {
            result.status = SolveStatus::not_finite;
            result.message = fmt::format("residual became {} at iteration {}", rr_new, k);
            return result;
        }
        if (result.relative_residual <= options.tolerance) {
            result.status = SolveStatus::converged;
            result.message = fmt::format("converged in {} iterations", k);
            return result;
        }
        xpay(r, static_cast<V>(rr_new / rr), p);
        rr = rr_new;
    }
    result.status = SolveStatus::max_iterations;
    result.message = fmt::format(
        "not converged: relative residual {:.3e} after {} iterations (tolerance {:.1e}); raise "
        "solver.max_iterations or loosen solver.tolerance",
        result.relative_residual, result.iterations, options.tolerance);
    return result;
}

template SolveResult cg(const LinearOperator<float>&, const Array<float>&, Array<float>&,
                        const SolveOptions&, IntervalTimer*);
template SolveResult cg(const LinearOperator<double>&, const Array<double>&, Array<double>&,
                        const SolveOptions&, IntervalTimer*);

}  // namespace gpufem
