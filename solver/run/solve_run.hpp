#pragma once
// What the solves of one solve_system share (the system, the settings, the preconditioner,
// the progress line and the account being written), and the true-residual check every
// finished solve goes through. The pipeline's plain solve and the finite volumes' correction
// (fv_correction.hpp) both solve through it.
#include <chrono>
#include <string>

#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "linalg/reordering.hpp"
#include "linalg/scaled_norms.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/progress_line.hpp"
#include "solver/run/solve_progress.hpp"

namespace gpufem {

/// The true residual ||b - A x|| / ||b|| of the solution into result; a converged solve
/// whose true residual misses the tolerance by more than true_residual_slack becomes
/// stagnated (the recursive residual drifted from the true one by rounding).
/// The 2-norm of a vector split among the processes of comm from each one's part's norm
/// (mine): the parts' norms scaled by the largest before they are squared and added, so that
/// huge (or tiny) data neither overflows nor underflows. Collective.
double norm_over_processes(const Communicator& comm, double mine);

template <typename V>
void check_true_residual(const LinearOperator<V>& a, const Array<V>& b, const Array<V>& x,
                         double tolerance, SolveResult& result,
                         const Communicator& comm = serial_communicator());

/// What the solves of one solve_system share: the system, the settings, the preconditioner,
/// the progress display, and the account being written (out). Across ranks the system is the
/// rank's rows, correction the rank's share of the corrected right-hand side, and comm the
/// ranks' communicator for the solvers' reductions and the norms.
template <typename V>
struct SolveRun {
    const LinearOperator<V>& op;           ///< the system's operator
    const Array<index_type>& permutation;  ///< its numbering (new -> original); empty: the original
    const SolverSpec& solver;
    const RhsCorrection<V>* correction;  ///< null: the right-hand side is fixed
    const Preconditioner<V>* m;
    SystemSolution<V>& out;
    const Communicator& comm;
    SolveOptions options;
    SolveProgress progress;

    SolveRun(const LinearOperator<V>& op, const Array<index_type>& permutation, const SolverSpec& solver,
             const RhsCorrection<V>* correction, const Preconditioner<V>* m, SystemSolution<V>& out,
             const Communicator& comm = serial_communicator())
        : op(op), permutation(permutation), solver(solver), correction(correction), m(m), out(out), comm(comm),
          options(solve_options(solver)), progress(solver.tolerance, solver.max_iterations)
    {
    }
    /// The run of a system on one process.
    SolveRun(const DiscreteSystem<V>& system, const SolverSpec& solver, const RhsCorrection<V>* correction,
             const Preconditioner<V>* m, SystemSolution<V>& out)
        : SolveRun(*system.op.op, system.op.permutation, solver, correction, m, out)
    {
    }
    const LinearOperator<V>& a() const { return op; }
    /// v in the operator's numbering (to_original false) or back in the original one.
    Array<V> reordered(const Array<V>& v, bool to_original) const
    {
        if (permutation.empty()) return v.clone_to(v.executor());
        Array<V> out_v(v.executor(), v.size());
        permute_vector(permutation, v, out_v, to_original);
        return out_v;
    }
    /// One Krylov solve of op (method) for rhs from solution to tolerance, shown as phase; the
    /// result into out.result.
    void krylov(KrylovMethod method, const LinearOperator<V>& op, const Array<V>& rhs, Array<V>& solution,
                double tolerance, const std::string& phase)
    {
        options.tolerance = tolerance;
        const ProgressLine line(phase, [this] { return progress.status(); });
        if (line.active()) options.on_residual = [this](int k, double r) { progress.record(k, r); };
        const auto begun = std::chrono::steady_clock::now();
        out.result = solve(method, solver.variant, op, rhs, solution, options, m, comm);
        op.executor()->synchronize();
        spdlog::debug("{}: {} iterations in {:.4f} s", phase, out.result.iterations,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count());
    }
    /// A solve of the system with the case's method, its iterations recorded.
    void pass(const Array<V>& rhs, Array<V>& solution, double tolerance, const std::string& phase)
    {
        krylov(solver.method, a(), rhs, solution, tolerance, phase);
        out.pass_iterations.push_back(out.result.iterations);
    }
    /// The right-hand side corrected with x, in the operator's numbering.
    Array<V> corrected_rhs(const Array<V>& x) const
    {
        return reordered(correction->corrected_rhs(reordered(x, true)), false);
    }
    /// The norm of a vector of the system (every rank's part) on every rank.
    double norm(const Array<V>& v) const { return norm_over_processes(comm, scaled_nrm2(v)); }
    /// x's residual ||b(x) - A x|| / ||b(x)|| against its own corrected right-hand side
    /// (returned in corrected).
    double correction_residual(const Array<V>& x, Array<V>& corrected) const
    {
        corrected = corrected_rhs(x);
        Array<V> residual = corrected.clone_to(a().executor());
        a().apply(V(-1), x, V(1), residual);
        const double size = norm(corrected);
        return size > 0 ? norm(residual) / size : 0.0;
    }
};

}  // namespace gpufem
