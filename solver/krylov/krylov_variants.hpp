#pragma once
// The four solver implementations behind solve() (krylov.hpp), and what they share.
#include <string>

#include "solver/krylov/krylov.hpp"

namespace gpufem {

/// CG with one library call per vector operation (LibraryBlas), every dot to the host.
template <typename V>
SolveResult reference_cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                         const SolveOptions& options, const Preconditioner<V>* m,
                         const Communicator& comm);
/// BiCGSTAB in the same style (Anzt et al. 2015, Figure 1, right).
template <typename V>
SolveResult reference_bicgstab(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                               const SolveOptions& options, const Preconditioner<V>* m,
                         const Communicator& comm);
/// CG with the fused kernels of merged_kernels.hpp, the scalars on the device.
template <typename V>
SolveResult merged_cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                      const SolveOptions& options, const Preconditioner<V>* m,
                         const Communicator& comm);
/// CG with one reduction per iteration (Chronopoulos and Gear 1989): r.r, r.z and z.Az
/// finished together, p.Ap from them and A p by recurrence; the same kernels' conventions as
/// merged_cg (the scalars on the device; on several processes one all-reduce per iteration).
template <typename V>
SolveResult merged_cg_single_reduction(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                                       const SolveOptions& options, const Preconditioner<V>* m,
                                       const Communicator& comm);
/// BiCGSTAB with the fused kernels (Anzt et al. 2015, §3.3), the scalars on the device.
template <typename V>
SolveResult merged_bicgstab(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                            const SolveOptions& options, const Preconditioner<V>* m,
                         const Communicator& comm);

/// Why an iteration stopped early, as the solvers detect it (shared by host and device code).
enum class StopReason : int {
    none = 0,
    rhs_zero,         ///< ||b|| = 0: the solution is 0
    pap_not_positive, ///< CG: p.Ap <= 0
    rz_not_positive,  ///< CG: rho = r.z <= 0 with r != 0: M is not positive definite
    rho_zero,         ///< BiCGSTAB: rhat.r = 0
    rhat_v_zero,      ///< BiCGSTAB: rhat.v = 0
    omega_zero,       ///< BiCGSTAB: omega = t.s / t.t = 0 (or t.t = 0)
    not_finite,       ///< a scalar became NaN or Inf
};

/// The message for a breakdown or non-finite value at iteration k (value: the offending
/// scalar), with a hint on what to change.
std::string stop_message(KrylovMethod method, StopReason reason, int iteration, double value);
/// The message for a solve that ran out of iterations (for CG with the hint that a
/// non-symmetric system needs BiCGSTAB).
std::string max_iterations_message(KrylovMethod method, double relative_residual, int iterations,
                                   double tolerance);

/// Starts and stops a timer that may be null.
struct ScopedInterval {
    ScopedInterval(IntervalTimer* timer) : timer_(timer)
    {
        if (timer_) timer_->start();
    }
    ~ScopedInterval()
    {
        if (timer_) timer_->stop();
    }
    ScopedInterval(const ScopedInterval&) = delete;
    ScopedInterval& operator=(const ScopedInterval&) = delete;

private:
    IntervalTimer* timer_;
};

}  // namespace gpufem
