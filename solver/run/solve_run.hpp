#pragma once
// What the solves of one solve_system share (the system, the settings, the preconditioner,
// the progress line and the account being written), and the true-residual check every
// finished solve goes through. The pipeline's plain solve and the finite volumes' correction
// (fv_correction.hpp) both solve through it.
#include <string>

#include "linalg/blas1.hpp"
#include "linalg/scaled_norms.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/progress_line.hpp"
#include "solver/run/solve_progress.hpp"

namespace gpufem {

/// The true residual ||b - A x|| / ||b|| of the solution into result; a converged solve
/// whose true residual misses the tolerance by more than true_residual_slack becomes
/// stagnated (the recursive residual drifted from the true one by rounding).
template <typename V>
void check_true_residual(const LinearOperator<V>& a, const Array<V>& b, const Array<V>& x,
                         double tolerance, SolveResult& result,
                         const Communicator& comm = serial_communicator());

/// What the solves of one solve_system share: the system, the settings, the preconditioner,
/// the progress display, and the account being written (out).
template <typename V>
struct SolveRun {
    const DiscreteSystem<V>& system;
    const SolverSpec& solver;
    const Discretisation<V>* disc;
    const Preconditioner<V>* m;
    SystemSolution<V>& out;
    SolveOptions options;
    SolveProgress progress;

    SolveRun(const DiscreteSystem<V>& system, const SolverSpec& solver, const Discretisation<V>* disc,
             const Preconditioner<V>* m, SystemSolution<V>& out)
        : system(system), solver(solver), disc(disc), m(m), out(out), options(solve_options(solver)),
          progress(solver.tolerance, solver.max_iterations)
    {
    }
    const LinearOperator<V>& a() const { return *system.op.op; }
    /// One Krylov solve of op (method) for rhs from solution to tolerance, shown as phase; the
    /// result into out.result.
    void krylov(KrylovMethod method, const LinearOperator<V>& op, const Array<V>& rhs, Array<V>& solution,
                double tolerance, const std::string& phase)
    {
        options.tolerance = tolerance;
        const ProgressLine line(phase, [this] { return progress.status(); });
        if (line.active()) options.on_residual = [this](int k, double r) { progress.record(k, r); };
        out.result = solve(method, solver.variant, op, rhs, solution, options, m);
        op.executor()->synchronize();
    }
    /// A solve of the system with the case's method, its iterations recorded.
    void pass(const Array<V>& rhs, Array<V>& solution, double tolerance, const std::string& phase)
    {
        krylov(solver.method, a(), rhs, solution, tolerance, phase);
        out.pass_iterations.push_back(out.result.iterations);
    }
    /// The right-hand side disc corrects with x, in the operator's numbering.
    Array<V> corrected_rhs(const Array<V>& x) const
    {
        return reordered(system.op, disc->corrected_rhs(reordered(system.op, x, true)), false);
    }
    /// x's residual ||b(x) - A x|| / ||b(x)|| against its own corrected right-hand side
    /// (returned in corrected).
    double correction_residual(const Array<V>& x, Array<V>& corrected) const
    {
        corrected = corrected_rhs(x);
        Array<V> residual = corrected.clone_to(a().executor());
        a().apply(V(-1), x, V(1), residual);
        const double size = scaled_nrm2(corrected);
        return size > 0 ? scaled_nrm2(residual) / size : 0.0;
    }
};

}  // namespace gpufem
