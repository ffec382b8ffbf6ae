#include "solver/krylov.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "solver/krylov_variants.hpp"
#include "solver/merged_kernels.hpp"

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

const char* method_name(KrylovMethod method)
{
    return method == KrylovMethod::cg ? "cg" : "bicgstab";
}
const char* variant_name(KrylovVariant variant)
{
    return variant == KrylovVariant::reference ? "reference" : "merged";
}
const char* preconditioner_name(Preconditioner p)
{
    return p == Preconditioner::none ? "none" : "jacobi";
}
const char* graph_mode_name(GraphMode mode)
{
    switch (mode) {
    case GraphMode::automatic: return "auto";
    case GraphMode::on: return "on";
    case GraphMode::off: return "off";
    }
    return "unknown";
}

namespace {
template <typename E, std::size_t N>
E parse_choice(const std::string& name, const char* what, const char* (&names)[N],
               const E (&values)[N])
{
    for (std::size_t i = 0; i < N; ++i)
        if (name == names[i]) return values[i];
    std::string list;
    for (std::size_t i = 0; i < N; ++i) list += (i ? ", " : "") + std::string(names[i]);
    throw std::invalid_argument(fmt::format("unknown {} '{}' (known: {})", what, name, list));
}
}  // namespace

KrylovMethod parse_method(const std::string& name)
{
    const char* names[] = {"cg", "bicgstab"};
    const KrylovMethod values[] = {KrylovMethod::cg, KrylovMethod::bicgstab};
    return parse_choice(name, "solver method", names, values);
}
KrylovVariant parse_variant(const std::string& name)
{
    const char* names[] = {"reference", "merged"};
    const KrylovVariant values[] = {KrylovVariant::reference, KrylovVariant::merged};
    return parse_choice(name, "solver variant", names, values);
}
Preconditioner parse_preconditioner(const std::string& name)
{
    const char* names[] = {"none", "jacobi"};
    const Preconditioner values[] = {Preconditioner::none, Preconditioner::jacobi};
    return parse_choice(name, "preconditioner", names, values);
}
GraphMode parse_graph_mode(const std::string& name)
{
    const char* names[] = {"auto", "on", "off"};
    const GraphMode values[] = {GraphMode::automatic, GraphMode::on, GraphMode::off};
    return parse_choice(name, "graph mode", names, values);
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
        return fmt::format("{} produced a non-finite value ({}) at iteration {}: NaN/Inf in the "
                           "matrix, right-hand side or initial guess, or overflow{}",
                           method_name(method), value, k,
                           method == KrylovMethod::cg ? "; if the system is non-symmetric, try "
                                                        "solver.method: bicgstab"
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
                                       Preconditioner preconditioner, std::size_t n,
                                       std::size_t value_size)
{
    const bool jacobi = preconditioner == Preconditioner::jacobi;
    std::size_t vectors = 0;  // vector reads + writes per row
    if (method == KrylovMethod::cg) {
        if (variant == KrylovVariant::reference) {
            // dot(p,q) 2, axpy x 3, axpy r 3, [dgmm z 3, dot(r,z) 2, nrm2(r) 1 | dot(r,r) 2],
            // scal p 2, axpy p 3
            vectors = 2 + 3 + 3 + (jacobi ? 3 + 2 + 1 : 2) + 2 + 3;
        } else {
            // alpha: p, q; update_xr: p, q, x, r (+d) -> x, r; update_p: r, p (+d) -> p
            vectors = 2 + (6 + jacobi) + (3 + jacobi);
        }
    } else {
        if (variant == KrylovVariant::reference) {
            // dot(rhat,r) 2; p: axpy 3, scal 2, axpy 3 [dgmm 3]; dot(rhat,v) 2; s: copy 2,
            // axpy 3; nrm2(s) 1 [dgmm 3]; dot(t,s) 2, dot(t,t) 1; x: axpy 3, axpy 3;
            // r: copy 2, axpy 3; nrm2(r) 1
            vectors = 2 + 8 + 2 + 5 + 1 + 3 + 6 + 5 + 1 + (jacobi ? 6 : 0);
        } else {
            // update_p: r, p, v (+d) -> p (+phat); alpha: rhat, v; update_s: r, v (+d) -> s
            // (+shat); omega: s, t; update_xr: x, p, s, t, rhat (+phat, shat instead of p and
            // an extra shat) -> x, r. Without Jacobi 14n read + 4n written.
            vectors = jacobi ? 6 + 2 + 5 + 2 + 8 : 4 + 2 + 3 + 2 + 7;
        }
    }
    return vectors * n * value_size;
}

template <typename V>
Array<V> jacobi_inverse(const LinearOperator<V>& a)
{
    const Array<V>& diagonal = a.diagonal();
    if (diagonal.empty() && a.rows() > 0)
        throw std::invalid_argument(fmt::format(
            "preconditioner jacobi: the '{}' operator carries no diagonal", a.format()));
    Array<V> inverse(a.executor(), diagonal.size());
    const Executor& exec = *a.executor();
    const long long bad = exec.is_cuda()
                              ? kernels::cuda::invert_diagonal(exec, diagonal.size(),
                                                               diagonal.data(), inverse.data())
                              : kernels::cpu::invert_diagonal(exec, diagonal.size(),
                                                              diagonal.data(), inverse.data());
    if (bad >= 0) {
        const V value = diagonal.to_host()[static_cast<std::size_t>(bad)];
        throw std::invalid_argument(fmt::format(
            "preconditioner jacobi: diagonal entry of row {} is {} (Jacobi needs a non-zero, "
            "finite diagonal); use solver.preconditioner: none",
            bad, static_cast<double>(value)));
    }
    return inverse;
}

template <typename V>
SolveResult solve(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                  const Array<V>& b, Array<V>& x, const SolveOptions& options)
{
    if (b.size() != static_cast<std::size_t>(a.rows()) || x.size() != b.size())
        throw std::invalid_argument("solve: vector sizes do not match the operator");
    if (options.check_every < 1) throw std::invalid_argument("solve: check_every must be >= 1");
    if (options.max_iterations < 1)
        throw std::invalid_argument("solve: max_iterations must be >= 1");
    if (method == KrylovMethod::cg)
        return variant == KrylovVariant::reference ? reference_cg(a, b, x, options)
                                                   : merged_cg(a, b, x, options);
    return variant == KrylovVariant::reference ? reference_bicgstab(a, b, x, options)
                                               : merged_bicgstab(a, b, x, options);
}

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template Array<V> jacobi_inverse(const LinearOperator<V>&);                               \
    template SolveResult solve(KrylovMethod, KrylovVariant, const LinearOperator<V>&,         \
                               const Array<V>&, Array<V>&, const SolveOptions&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
