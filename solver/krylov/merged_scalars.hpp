#pragma once
// The scalar step of the merged solvers: what the last block of a fused reduction does with
// the finished dot products (alpha, beta, omega, the residual, convergence and breakdown
// checks). Written once for both backends: the CPU kernels call it after their loops, the
// CUDA kernels from the last block of the grid — or, when the sums must first be added over
// several processes, a kernel of its own after the all-reduce (ScalarStep, scalar_step).
#include <cmath>

#include "linalg/host_device.hpp"
#include "solver/krylov/krylov_variants.hpp"

namespace gpufem {

/// Where a merged solve stands; lives in device memory (double whatever the value type).
struct KrylovScalars {
    double rho = 0;       ///< CG: r.z; BiCGSTAB: rhat.r of the current residual
    double alpha = 0;
    double beta = 0;
    double omega = 0;
    double rr = 0;        ///< r.r of the current residual
    double rhs_norm = 0;  ///< ||b||
    double tolerance = 0; ///< relative tolerance
    double ss = 0;        ///< BiCGSTAB: s.s of the half step
    double stop_value = 0;///< the scalar that stopped the iteration (for the message)
    int stop_iteration = 0; ///< the iteration in which it stopped
    int iteration = 0;    ///< completed iterations
    int max_iterations = 0;
    int status = 0;       ///< KrylovState
    int reason = 0;       ///< StopReason
    int half_step = 0;    ///< BiCGSTAB: converged on s; the x/r update finishes the iteration
};

/// KrylovScalars::status values.
enum KrylovState : int { state_running = 0, state_converged, state_max_iterations, state_breakdown,
                         state_not_finite };

namespace merged {

/// Neither NaN nor Inf (v - v is NaN for both).
GPUFEM_HOST_DEVICE inline bool finite(double v) { return v - v == 0.0; }

/// Stops in the iteration under way (iteration + 1), or in iteration when given.
GPUFEM_HOST_DEVICE inline void stop(KrylovScalars& s, int status, StopReason reason, double value,
                                    int iteration = -1)
{
    s.status = status;
    s.stop_iteration = iteration < 0 ? s.iteration + 1 : iteration;
    s.reason = static_cast<int>(reason);
    s.stop_value = value;
}

/// After a new residual with r.r = rr: counts the iteration, records ||r|| / ||b|| (in history,
/// unless null) and stops on convergence, non-finite residual or the iteration limit.
GPUFEM_HOST_DEVICE inline void finish_iteration(KrylovScalars& s, double rr, double* history)
{
    s.iteration += 1;
    s.rr = rr;
    const double relative = sqrt(rr) / s.rhs_norm;
    if (history) history[s.iteration] = relative;
    const int k = s.iteration;
    if (!finite(rr)) return stop(s, state_not_finite, StopReason::not_finite, rr, k);
    if (relative <= s.tolerance) return stop(s, state_converged, StopReason::none, relative, k);
    if (k >= s.max_iterations) return stop(s, state_max_iterations, StopReason::none, relative, k);
}

/// Initial state from r0.r0, r0.z0 (CG) or rhat.r0 (BiCGSTAB) and b.b.
GPUFEM_HOST_DEVICE inline void start(KrylovScalars& s, double rr, double rho, double bb,
                                     double* history)
{
    s.rr = rr;
    s.rho = rho;
    s.rhs_norm = sqrt(bb);
    s.alpha = 1;
    s.omega = 1;
    s.beta = 0;
    s.iteration = 0;
    s.half_step = 0;
    s.status = state_running;
    s.reason = 0;
    if (!finite(rr) || !finite(bb)) {
        history[0] = rr + bb;
        return stop(s, state_not_finite, StopReason::not_finite, rr + bb, 0);
    }
    if (bb == 0) {
        history[0] = 0;
        return stop(s, state_converged, StopReason::rhs_zero, 0, 0);
    }
    history[0] = sqrt(rr) / s.rhs_norm;
    if (history[0] <= s.tolerance)
        return stop(s, state_converged, StopReason::none, history[0], 0);
}

/// CG: alpha = rho / p.Ap, stopping when p.Ap <= 0 or is not finite.
GPUFEM_HOST_DEVICE inline void cg_alpha(KrylovScalars& s, double pap)
{
    // rho = r.z > 0 for every r != 0 when M is positive definite (r.r without one).
    if (s.rho <= 0) return stop(s, state_breakdown, StopReason::rz_not_positive, s.rho);
    if (!finite(pap)) return stop(s, state_not_finite, StopReason::not_finite, pap);
    if (pap <= 0) return stop(s, state_breakdown, StopReason::pap_not_positive, pap);
    s.alpha = s.rho / pap;
}

/// CG: rho_new = r.z of the new residual and beta = rho_new / rho (start: rho = r0.z0, beta 0).
GPUFEM_HOST_DEVICE inline void cg_beta(KrylovScalars& s, double rz, bool start)
{
    if (!finite(rz)) return stop(s, state_not_finite, StopReason::not_finite, rz, s.iteration);
    s.beta = start ? 0.0 : rz / s.rho;
    s.rho = rz;
}

/// CG: after x, r (and z) are updated: rho_new = r.z, the residual check, beta.
GPUFEM_HOST_DEVICE inline void cg_finish(KrylovScalars& s, double rz, double rr, double* history)
{
    finish_iteration(s, rr, history);
    if (s.status != state_running) return;
    cg_beta(s, rz, false);
}

/// Whether alpha = rho / p.Ap is taken (cg_alpha does not stop the solve): what every block of
/// a kernel that computes alpha itself checks before it updates x and r.
GPUFEM_HOST_DEVICE inline bool cg_alpha_taken(double rho, double pap)
{
    return rho > 0 && finite(pap) && pap > 0;
}

/// CG with its direction fused into the product: alpha from p.Ap, then, unless that stopped
/// the solve, the finish on the new residual's r.z and r.r.
GPUFEM_HOST_DEVICE inline void cg_alpha_finish(KrylovScalars& s, double pap, double rz, double rr, double* history)
{
    cg_alpha(s, pap);
    if (s.status != state_running) return;
    cg_finish(s, rz, rr, history);
}

/// BiCGSTAB: alpha = rho / rhat.v.
GPUFEM_HOST_DEVICE inline void bicgstab_alpha(KrylovScalars& s, double rv)
{
    if (!finite(rv)) return stop(s, state_not_finite, StopReason::not_finite, rv);
    if (rv == 0) return stop(s, state_breakdown, StopReason::rhat_v_zero, rv);
    s.alpha = s.rho / rv;
}

/// BiCGSTAB: omega = t.s / t.t, or the half-step exit when ||s|| already meets the tolerance
/// (omega = 0: the x/r update then adds alpha p only and sets r = s).
GPUFEM_HOST_DEVICE inline void bicgstab_omega(KrylovScalars& s, double ts, double tt, double ss)
{
    s.ss = ss;
    if (!finite(ts) || !finite(tt) || !finite(ss))
        return stop(s, state_not_finite, StopReason::not_finite, ts + tt + ss);
    if (sqrt(ss) / s.rhs_norm <= s.tolerance) {
        s.omega = 0;
        s.half_step = 1;
        return;
    }
    if (tt == 0 || ts == 0) return stop(s, state_breakdown, StopReason::omega_zero, tt == 0 ? tt : ts);
    s.omega = ts / tt;
}

/// BiCGSTAB: after x and r are updated: the residual check, then rho and beta for the next
/// p update.
GPUFEM_HOST_DEVICE inline void bicgstab_finish(KrylovScalars& s, double rhat_r, double rr,
                                               double* history)
{
    if (s.half_step) rr = s.ss;  // r = s exactly
    finish_iteration(s, rr, history);
    if (s.status != state_running) return;
    if (!finite(rhat_r))
        return stop(s, state_not_finite, StopReason::not_finite, rhat_r, s.iteration);
    if (rhat_r == 0) return stop(s, state_breakdown, StopReason::rho_zero, rhat_r, s.iteration);
    s.beta = (rhat_r / s.rho) * (s.alpha / s.omega);
    s.rho = rhat_r;
}

/// Single-reduction CG: alpha = rho / p.Ap with p.Ap = z.Az - beta rho / alpha_old (p = z +
/// beta p_old is A-conjugate to p_old, and z.A p_old = -rho / alpha_old), so that the dots of
/// one iteration (r.r, r.z, z.Az) need no p.Ap of their own; at the start beta = 0.
GPUFEM_HOST_DEVICE inline void cg1_alpha(KrylovScalars& s, double z_az)
{
    if (s.rho <= 0) return stop(s, state_breakdown, StopReason::rz_not_positive, s.rho);
    const double pap = z_az - s.beta * s.rho / s.alpha;
    if (!finite(pap)) return stop(s, state_not_finite, StopReason::not_finite, pap);
    if (pap <= 0) return stop(s, state_breakdown, StopReason::pap_not_positive, pap);
    s.alpha = s.rho / pap;
}

/// Single-reduction CG at the start: the state from r.r, r.z, b.b, then the first alpha.
GPUFEM_HOST_DEVICE inline void cg1_start(KrylovScalars& s, double rr, double rz, double z_az, double bb,
                                         double* history)
{
    start(s, rr, rz, bb, history);
    if (s.status != state_running) return;
    if (!finite(rz)) return stop(s, state_not_finite, StopReason::not_finite, rz, 0);
    cg1_alpha(s, z_az);
}

/// Single-reduction CG after x and r (and z = M^-1 r, and A z) are new: the residual check,
/// beta = rho_new / rho, then alpha.
GPUFEM_HOST_DEVICE inline void cg1_step(KrylovScalars& s, double rr, double rz, double z_az, double* history)
{
    finish_iteration(s, rr, history);
    if (s.status != state_running) return;
    cg_beta(s, rz, false);
    if (s.status != state_running) return;
    cg1_alpha(s, z_az);
}

}  // namespace merged

/// The scalar step a fused reduction ends in, named so that it can run apart from the kernel
/// whose sums it takes: on several processes the sums are all-reduced between the two.
enum class ScalarStep : int {
    cg_start,         ///< sums r.z, r.r, b.b: merged::start
    cg_alpha,         ///< sums p.q: merged::cg_alpha
    cg_finish,        ///< sums r.z, r.r: merged::cg_finish
    residual,         ///< sums r.r: merged::finish_iteration (CG with a general M)
    cg_beta_start,    ///< sums r.z: merged::cg_beta at the start
    cg_beta,          ///< sums r.z: merged::cg_beta
    bicgstab_start,   ///< sums r.r, b.b: merged::start with rho = r.r
    bicgstab_alpha,   ///< sums rhat.v: merged::bicgstab_alpha
    bicgstab_omega,   ///< sums t.s, t.t, s.s: merged::bicgstab_omega
    bicgstab_finish,  ///< sums rhat.r, r.r: merged::bicgstab_finish
    cg1_start,        ///< sums r.r, r.z, z.Az, b.b: merged::cg1_start
    cg1_step,         ///< sums r.r, r.z, z.Az: merged::cg1_step
    cg_alpha_finish,  ///< sums p.q, r.z, r.r: merged::cg_alpha_finish
};

/// How many sums the step takes.
GPUFEM_HOST_DEVICE inline int scalar_step_sums(ScalarStep step)
{
    switch (step) {
    case ScalarStep::cg1_start: return 4;
    case ScalarStep::cg_start:
    case ScalarStep::cg1_step:
    case ScalarStep::cg_alpha_finish:
    case ScalarStep::bicgstab_omega: return 3;
    case ScalarStep::cg_finish:
    case ScalarStep::bicgstab_start:
    case ScalarStep::bicgstab_finish: return 2;
    default: return 1;
    }
}

/// Whether the step starts a solve (it runs whatever the state; the others only while it runs).
GPUFEM_HOST_DEVICE inline bool starts_solve(ScalarStep step)
{
    return step == ScalarStep::cg_start || step == ScalarStep::bicgstab_start || step == ScalarStep::cg1_start;
}

/// Runs step on the finished sums (scalar_step_sums(step) of them, totals over every process).
GPUFEM_HOST_DEVICE inline void scalar_step(KrylovScalars& s, ScalarStep step, const double* sums,
                                           double* history)
{
    switch (step) {
    case ScalarStep::cg_start: return merged::start(s, sums[1], sums[0], sums[2], history);
    case ScalarStep::cg_alpha: return merged::cg_alpha(s, sums[0]);
    case ScalarStep::cg_finish: return merged::cg_finish(s, sums[0], sums[1], history);
    case ScalarStep::residual: return merged::finish_iteration(s, sums[0], history);
    case ScalarStep::cg_beta_start: return merged::cg_beta(s, sums[0], true);
    case ScalarStep::cg_beta: return merged::cg_beta(s, sums[0], false);
    case ScalarStep::bicgstab_start: return merged::start(s, sums[0], sums[0], sums[1], history);
    case ScalarStep::bicgstab_alpha: return merged::bicgstab_alpha(s, sums[0]);
    case ScalarStep::bicgstab_omega: return merged::bicgstab_omega(s, sums[0], sums[1], sums[2]);
    case ScalarStep::bicgstab_finish: return merged::bicgstab_finish(s, sums[0], sums[1], history);
    case ScalarStep::cg1_start: return merged::cg1_start(s, sums[0], sums[1], sums[2], sums[3], history);
    case ScalarStep::cg1_step: return merged::cg1_step(s, sums[0], sums[1], sums[2], history);
    case ScalarStep::cg_alpha_finish: return merged::cg_alpha_finish(s, sums[0], sums[1], sums[2], history);
    }
}

}  // namespace gpufem
