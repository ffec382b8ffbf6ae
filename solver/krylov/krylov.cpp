#include "solver/krylov/krylov.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/blas1.hpp"
#include "linalg/scaled_norms.hpp"
#include "solver/krylov/equilibration.hpp"
#include "solver/krylov/krylov_variants.hpp"

namespace gpufem {

const char* solve_status_name(SolveStatus status)
{
    switch (status) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::breakdown: return "breakdown";
    case SolveStatus::not_finite: return "not_finite";
    case SolveStatus::stagnated: return "stagnated";
    }
    return "unknown";
}

std::string stop_message(KrylovMethod method, StopReason reason, int k, double value)
{
    const char* spd_hint =
        "the matrix is not symmetric positive definite (a missing Dirichlet condition, a "
        "negative kappa, or a non-symmetric system such as one with convection: try "
        "solver.method: bicgstab)";
    switch (reason) {
    case StopReason::none: return "";
    case StopReason::rhs_zero: return "right-hand side is zero: solution is zero";
    case StopReason::pap_not_positive:
        return fmt::format("breakdown at iteration {}: p.Ap = {:.3e} <= 0, {}", k, value, spd_hint);
    case StopReason::rz_not_positive:
        return fmt::format("breakdown at iteration {}: r.z = {:.3e} <= 0 for a non-zero residual: "
                           "the preconditioner is not symmetric positive definite (CG needs "
                           "one; try solver.preconditioner: none, or solver.method: bicgstab)",
                           k, value);
    case StopReason::rho_zero:
        return fmt::format("breakdown at iteration {}: rho = rhat.r = {:.3e} (the shadow residual "
                           "became orthogonal to the residual); restart from this x or try "
                           "another initial guess",
                           k, value);
    case StopReason::rhat_v_zero:
        return fmt::format("breakdown at iteration {}: rhat.v = {:.3e}, alpha is undefined; "
                           "restart from this x, or precondition (solver.preconditioner: jacobi)",
                           k, value);
    case StopReason::omega_zero:
        return fmt::format("breakdown at iteration {}: omega = t.s / t.t = {:.3e} (stagnation); "
                           "the operator may be singular or strongly non-normal: try "
                           "solver.preconditioner: jacobi",
                           k, value);
    case StopReason::not_finite:
        // The solve's caller (solve) adds whether the data was finite.
        return fmt::format("{} produced a non-finite value ({}) at iteration {}{}", method_name(method), value, k,
                           method == KrylovMethod::cg ? " (if the system is non-symmetric, try "
                                                        "solver.method: bicgstab)"
                                                      : "");
    }
    return "unknown stop reason";
}

std::string max_iterations_message(KrylovMethod method, double relative_residual, int iterations,
                                   double tolerance)
{
    return fmt::format(
        "not converged: relative residual {:.3e} after {} iterations (tolerance {:.1e}); raise "
        "solver.max_iterations, loosen solver.tolerance or try solver.preconditioner: jacobi{}",
        relative_residual, iterations, tolerance,
        method == KrylovMethod::cg ? "; CG needs a symmetric positive definite system: for a "
                                     "non-symmetric one (problem.convection) use "
                                     "solver.method: bicgstab"
                                   : "");
}

std::size_t vector_bytes_per_iteration(KrylovMethod method, KrylovVariant variant,
                                       const PreconditionerTraffic& pre, std::size_t n,
                                       std::size_t value_size, bool fused_dot)
{
    const std::size_t unit = n * value_size;
    const std::size_t apply = pre.present ? pre.apply_bytes : 0;  // one M^-1 apply
    std::size_t vectors = 0;  // vector reads + writes per row outside the applies
    if (method == KrylovMethod::cg) {
        if (variant == KrylovVariant::reference) {
            // dot(p,q) 2, axpy x 3, axpy r 3, [M^-1 r, dot(r,z) 2, nrm2(r) 1 | dot(r,r) 2],
            // scal p 2, axpy p 3
            vectors = 2 + 3 + 3 + (pre.present ? 2 + 1 : 2) + 2 + 3;
            return vectors * unit + apply;
        }
        if (variant == KrylovVariant::single_reduction) {
            // update: z (or r, d), p, s, q, x, r -> p, q, x, r (+z with d); dots: r, s (+z)
            if (!pre.present) return (9 + 2) * unit;
            if (pre.diagonal) return (11 + 3) * unit;
            return (10 + 3) * unit + apply;
        }
        const std::size_t alpha = fused_dot ? 0 : 2;  // p, q read again for p.q
        if (!pre.present || pre.diagonal) {
            // alpha: p, q; update_xr: p, q, x, r (+d) -> x, r; update_p: r, p (+d) -> p
            vectors = alpha + (6 + pre.diagonal) + (3 + pre.diagonal);
            return vectors * unit;
        }
        // alpha 2; update_xr: p, q, x, r -> x, r; M^-1 r; rho: r, z; update_p: z, p -> p
        return (alpha + 6 + 2 + 3) * unit + apply;
    }
    if (variant == KrylovVariant::reference) {
        // dot(rhat,r) 2; p: axpy 3, scal 2, axpy 3 [M^-1 p]; dot(rhat,v) 2; s: copy 2,
        // axpy 3; nrm2(s) 1 [M^-1 s]; dot(t,s) 2, dot(t,t) 1; x: axpy 3, axpy 3;
        // r: copy 2, axpy 3; nrm2(r) 1
        vectors = 2 + 8 + 2 + 5 + 1 + 3 + 6 + 5 + 1;
        return vectors * unit + 2 * apply;
    }
    if (pre.present && !pre.diagonal) {
        // update_p: r, p, v -> p; M^-1 p; alpha: rhat, v; update_s: r, v -> s; M^-1 s;
        // omega: s, t; update_xr: x, phat, shat, s, t, rhat -> x, r
        return (4 + 2 + 3 + 2 + 8) * unit + 2 * apply;
    }
    // update_p: r, p, v (+d) -> p (+phat); alpha: rhat, v; update_s: r, v (+d) -> s (+shat);
    // omega: s, t; update_xr: x, p, s, t, rhat (+phat, shat instead of p and an extra shat)
    // -> x, r. Without Jacobi 14n read + 4n written.
    vectors = pre.diagonal ? 6 + 2 + 5 + 2 + 8 : 4 + 2 + 3 + 2 + 7;
    return vectors * unit;
}

namespace {

/// solve's Krylov iterations on the data as given.
template <typename V>
SolveResult solve_as_given(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                           const Array<V>& b, Array<V>& x, const SolveOptions& options,
                           const Preconditioner<V>* m, const Communicator& comm)
{
    if (method == KrylovMethod::cg) {
        switch (variant) {
        case KrylovVariant::reference: return reference_cg(a, b, x, options, m, comm);
        case KrylovVariant::single_reduction: return merged_cg_single_reduction(a, b, x, options, m, comm);
        case KrylovVariant::merged: break;
        }
        return merged_cg(a, b, x, options, m, comm);
    }
    if (variant == KrylovVariant::single_reduction)
        throw std::invalid_argument("solver variant single_reduction is a CG variant; BiCGSTAB runs merged or reference");
    return variant == KrylovVariant::reference ? reference_bicgstab(a, b, x, options, m, comm)
                                               : merged_bicgstab(a, b, x, options, m, comm);
}

/// solve_as_given on 2^k b from 2^k x, x scaled back by 2^-k, the result's sizes too.
template <typename V>
SolveResult solve_scaled(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                         const Array<V>& b, Array<V>& x, const SolveOptions& options,
                         const Preconditioner<V>* m, const Communicator& comm, int k)
{
    Array<V> scaled_b = b.clone_to(b.executor());
    scale_by_power_of_two(k, scaled_b);
    scale_by_power_of_two(k, x);
    SolveResult result = solve_as_given(method, variant, a, scaled_b, x, options, m, comm);
    scale_by_power_of_two(-k, x);
    result.rhs_norm = std::ldexp(result.rhs_norm, -k);
    result.initial_residual = std::ldexp(result.initial_residual, -k);
    if (result.status != SolveStatus::not_finite && !std::isfinite(max_abs(x))) {
        // Solved, but the solution itself lies beyond V's range.
        result.status = SolveStatus::not_finite;
        result.message = "the solution is finite only in scaled form";
    }
    return result;
}

}  // namespace

template <typename V>
SolveResult solve(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                  const Array<V>& b, Array<V>& x, const SolveOptions& options,
                  const Preconditioner<V>* m, const Communicator& comm)
{
    if (b.size() != static_cast<std::size_t>(a.rows()) || x.size() != b.size())
        throw std::invalid_argument("solve: vector sizes do not match the operator");
    if (options.check_every < 1) throw std::invalid_argument("solve: check_every must be >= 1");
    if (options.max_iterations < 1)
        throw std::invalid_argument("solve: max_iterations must be >= 1");
    if (m && (m->size() != a.rows() || m->executor()->backend() != a.executor()->backend()))
        throw std::invalid_argument("solve: the preconditioner does not match the operator");
    const SolveData data = measure_solve_data(b, x, comm);
    if (!data.finite()) {
        SolveResult result;
        result.status = SolveStatus::not_finite;
        result.rhs_norm = data.rhs_largest;
        result.relative_residual = std::numeric_limits<double>::quiet_NaN();
        result.message = not_finite_data_message(data, b, x);
        return result;
    }
    SolveResult result = data.exponent == 0
                             ? solve_as_given(method, variant, a, b, x, options, m, comm)
                             : solve_scaled(method, variant, a, b, x, options, m, comm, data.exponent);
    if (result.status == SolveStatus::not_finite) result.message += ": " + overflow_message<V>(data);
    return result;
}

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template SolveResult solve(KrylovMethod, KrylovVariant, const LinearOperator<V>&,         \
                               const Array<V>&, Array<V>&, const SolveOptions&,              \
                               const Preconditioner<V>*, const Communicator&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
