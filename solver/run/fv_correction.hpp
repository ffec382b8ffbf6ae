#pragma once
// The finite volumes' non-orthogonal correction solved with the system: implicitly (one
// BiCGSTAB solve of the corrected operator A - C) where the correction is affine, else (or
// when that fails) as deferred passes, each a solve with the right-hand side corrected by the
// last iterate, Anderson-mixed. It needs the Krylov solver and the preconditioner, so it lives
// with the application's solve (solver/run) rather than beside the discretisation in
// assembly/, which may not include solver/; the discretisation gives it what it corrects
// (Discretisation::corrected_rhs, correction_passes, correction_is_affine).
#include "solver/run/solve_run.hpp"

namespace gpufem {

/// How the corrected system was solved.
enum class CorrectionSolve {
    implicit,  ///< one solve of A - C converged: run.out is complete but for its time and solution
    deferred,  ///< deferred passes (run.out's iterations and message summed up over them)
};

/// Solves run's system with its discretisation's correction, from x (the initial guess, in the
/// operator's numbering; the solution on return). b: the right-hand side without correction;
/// corrected_b: the corrected right-hand side x was last measured against (empty when none).
template <typename V>
CorrectionSolve solve_with_correction(SolveRun<V>& run, const Array<V>& b, Array<V>& x, Array<V>& corrected_b);

}  // namespace gpufem
