#pragma once
// cg(): conjugate gradients in one call (the merged variant), for code that just needs an SPD
// solve; solve() in krylov.hpp chooses method, variant and preconditioner.
#include "solver/krylov/krylov.hpp"

namespace gpufem {

/// Solves A x = b (A symmetric positive definite) with merged CG, x holding the initial guess.
/// If spmv_timer is given, every SpMV is timed with it (and no CUDA graph is used).
template <typename V>
SolveResult cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x, SolveOptions options,
               IntervalTimer* spmv_timer = nullptr)
{
    SolverPhaseTimers phases;
    phases.spmv = spmv_timer;
    if (spmv_timer) options.phases = &phases;
    return solve(KrylovMethod::cg, KrylovVariant::merged, a, b, x, options);
}

}  // namespace gpufem
