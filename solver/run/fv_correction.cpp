#include "solver/run/fv_correction.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "linalg/scaled_norms.hpp"
#include "solver/run/anderson_mixing.hpp"
#include "solver/run/corrected_operator.hpp"

namespace gpufem {
namespace {

/// Steps the deferred correction's Anderson mixing combines.
constexpr int anderson_depth = 5;

/// An affine correction solved with the system: one BiCGSTAB solve of A - C (not symmetric),
/// preconditioned as A. True when it converged (out complete but for its time and solution);
/// otherwise x is the initial guess again and out says why the deferred passes follow.
template <typename V>
bool solve_implicit_correction(SolveRun<V>& run, Array<V>& x, Array<V>& corrected_b)
{
    SystemSolution<V>& out = run.out;
    const Array<V> initial = x.clone_to(x.executor());  // where the deferred passes start if this fails
    const CorrectedOperator<V> corrected(run.a(), run.permutation, *run.correction);
    run.krylov(KrylovMethod::bicgstab, corrected, corrected.rhs(), x, run.solver.tolerance,
               "solve (corrected operator)");
    // b(0) - (A - C) x = b(x) - A x: the true residual is x's against its own corrected
    // right-hand side, so one evaluation of b(x) serves both figures.
    corrected_b = run.corrected_rhs(x);
    check_true_residual(run.a(), corrected_b, x, run.solver.tolerance, out.result, run.comm);
    if (out.result.status == SolveStatus::converged) {
        out.pass_iterations = {out.result.iterations};
        out.correction = "implicit";
        out.result.message = fmt::format("converged in {} BiCGSTAB iterations on the corrected operator "
                                         "A - C (fv.correction: implicit)", out.result.iterations);
        const double size = run.norm(corrected_b);
        out.correction_change = size > 0 && out.result.true_relative_residual >= 0
                                    ? out.result.true_relative_residual * out.result.rhs_norm / size
                                    : 0.0;
        spdlog::info("non-orthogonal correction solved with the system (fv.correction: implicit): "
                     "{} BiCGSTAB iterations on A - C; the solution's residual against its own "
                     "corrected right-hand side is {:.2e}", out.result.iterations, out.correction_change);
        return true;
    }
    spdlog::warn("fv.correction: implicit: BiCGSTAB on the corrected operator did not converge "
                 "({}); the deferred correction's passes run instead", out.result.message);
    out.correction = "deferred (implicit did not converge after " + std::to_string(out.result.iterations) +
                     " iterations)";
    x = initial.clone_to(initial.executor());
    corrected_b = Array<V>();
    return false;
}

/// Deferred correction (disc's passes) after a first solve to 1e-2, a fixed point x = G(x):
/// G(x) solves A g = b(x), the right-hand side the discretisation corrects with x (same
/// operator and preconditioner, warm-started from x). It is done when x meets its own b(x) to
/// the tolerance (a smaller change of b the solver cannot tell from its own error). The
/// iterates are Anderson-mixed (depth 5: a few passes where the plain iteration takes tens,
/// and convergent where it would diverge); each solve before the last needs to gain only two
/// decades on the residual x leaves against b(x); if the passes run out, one solve to the
/// tolerance ends. Returns ||b(x) - A x|| / ||b(x)|| of the last corrected right-hand side
/// (corrected_b).
template <typename V>
double solve_deferred_correction(SolveRun<V>& run, const Array<V>& b, Array<V>& x, Array<V>& corrected_b)
{
    const double goal = run.solver.tolerance;
    const int passes = run.correction->correction_passes();
    run.pass(b, x, std::max(goal, 1e-2), "solve");
    double change = 0.0;
    AndersonMixing<V> mixing(anderson_depth, run.comm);
    bool met = false;  // x solves the system it ends with, to the tolerance
    for (int pass = 1; pass <= passes && run.out.result.status == SolveStatus::converged; ++pass) {
        change = run.correction_residual(x, corrected_b);
        if (change <= goal) {
            met = true;  // x solves its corrected system
            run.out.result.rhs_norm = run.norm(corrected_b);
            break;
        }
        Array<V> g = x.clone_to(x.executor());
        run.pass(corrected_b, g, std::max(goal, 0.01 * change), "correction " + std::to_string(pass));
        // A failed solve ends the passes with its own iterate (reported as it is).
        x = run.out.result.status == SolveStatus::converged ? mixing.next(x, g) : std::move(g);
    }
    if (!met && run.out.result.status == SolveStatus::converged) {
        corrected_b = run.corrected_rhs(x);
        run.pass(corrected_b, x, goal, "solve");
        Array<V> next;  // where the last solve leaves x against its own corrected system
        change = run.correction_residual(x, next);
    }
    return change;
}

/// The account of a deferred correction: every solve's iterations together, the message, the
/// log line.
template <typename V>
void report_deferred_correction(SystemSolution<V>& out, double change, double tolerance)
{
    int total = 0;
    for (int iterations : out.pass_iterations) total += iterations;
    out.result.iterations = total;
    if (out.result.status == SolveStatus::converged)
        out.result.message = fmt::format("converged in {} iterations over {} solves (the non-orthogonal "
                                         "correction's passes)", total, out.pass_iterations.size());
    out.correction_change = change;
    spdlog::log(change <= tolerance ? spdlog::level::info : spdlog::level::warn,
                "non-orthogonal correction: {} solve{} (iterations {}); the solution's residual "
                "against its own corrected right-hand side is {:.2e}{}", out.pass_iterations.size(),
                out.pass_iterations.size() == 1 ? "" : "s", fmt::format("{}", fmt::join(out.pass_iterations, " + ")),
                change, change <= tolerance
                            ? " (converged)"
                            : ", above the tolerance: fv.nonorthogonal_correctors ran out before the "
                              "correction converged (raise it, or bound it with fv.correction_limit)");
}

}  // namespace

template <typename V>
CorrectionSolve solve_with_correction(SolveRun<V>& run, const Array<V>& b, Array<V>& x, Array<V>& corrected_b)
{
    if (run.correction->correction_is_affine() && solve_implicit_correction(run, x, corrected_b))
        return CorrectionSolve::implicit;
    if (run.out.correction.empty()) run.out.correction = "deferred";
    report_deferred_correction(run.out, solve_deferred_correction(run, b, x, corrected_b), run.solver.tolerance);
    return CorrectionSolve::deferred;
}

template CorrectionSolve solve_with_correction(SolveRun<float>&, const Array<float>&, Array<float>&, Array<float>&);
template CorrectionSolve solve_with_correction(SolveRun<double>&, const Array<double>&, Array<double>&,
                                               Array<double>&);

}  // namespace gpufem
