// The reference CG and BiCGSTAB: every vector operation one library call (LibraryBlas: cuBLAS
// on the GPU), every dot product returned to the host, the scalars computed there — the
// library-style implementation of Anzt et al. 2015, Figure 1 (right) that the merged variant is
// measured against. Also the CPU reference of the merged kernels.
#include <cmath>

#include <fmt/format.h>

#include "linalg/blas1.hpp"
#include "linalg/library_blas.hpp"
#include "solver/krylov/krylov_variants.hpp"

namespace gpufem {
namespace {

/// Host bookkeeping shared by both reference solvers: history, stop checks, messages, timers.
template <typename V>
class ReferenceRun {
public:
    ReferenceRun(KrylovMethod method, const LinearOperator<V>& a, const SolveOptions& options,
                 const Preconditioner<V>* m, const Communicator& comm)
        : method_(method), a_(a), options_(options), m_(m), comm_(comm), blas_(a.executor())
    {
        if (options.phases) {
            spmv_timer_ = options.phases->spmv;
            vector_timer_ = options.phases->vector;
            reduction_timer_ = options.phases->reduction;
            result_.spmv_clock = "phase timers";
        } else if (options.time_spmv) {
            own_timer_ = make_interval_timer(a.executor());
            spmv_timer_ = own_timer_.get();
            result_.spmv_clock = own_timer_->clock();
        } else {
            result_.spmv_clock = "off";
        }
    }

    const LibraryBlas<V>& blas() const { return blas_; }
    /// True when a preconditioner is applied.
    bool preconditioned() const { return m_ != nullptr; }
    IntervalTimer* vector_timer() const { return vector_timer_; }
    /// out = M^-1 in (one library call for Jacobi), timed as a vector operation.
    void precondition(const Array<V>& in, Array<V>& out)
    {
        ScopedInterval t(vector_timer_);
        m_->apply(in, out);
    }

    /// out = A in, untimed (the initial residual).
    void apply(const Array<V>& in, Array<V>& out) { a_.apply(in, out); }
    /// out = A in, timed (the iterations' SpMVs).
    void spmv(const Array<V>& in, Array<V>& out)
    {
        ScopedInterval t(spmv_timer_);
        a_.apply(in, out);
    }
    /// x . y on the host (summed over the processes), timed as a reduction.
    double dot(const Array<V>& x, const Array<V>& y)
    {
        ScopedInterval t(reduction_timer_);
        ++result_.host_reads;
        return sum_over_processes(comm_, blas_.dot(x, y));
    }
    /// ||x|| on the host: the library's own norm on one process, the root of the summed
    /// squares of the processes' norms on several.
    double nrm2(const Array<V>& x)
    {
        ScopedInterval t(reduction_timer_);
        ++result_.host_reads;
        const double local = blas_.nrm2(x);
        return comm_.reduces() ? std::sqrt(sum_over_processes(comm_, local * local)) : local;
    }

    /// Records ||b|| and ||r0||; false when the solve is already over (result() says why).
    bool start(double rhs_norm, double r_norm)
    {
        result_.rhs_norm = rhs_norm;
        result_.initial_residual = r_norm;
        if (!std::isfinite(r_norm) || !std::isfinite(rhs_norm)) {
            result_.residual_history = {r_norm};
            return finish(SolveStatus::not_finite,
                          "the initial residual is not finite");
        }
        if (rhs_norm == 0.0) {
            result_.residual_history = {0.0};
            return finish(SolveStatus::converged, stop_message(method_, StopReason::rhs_zero, 0, 0));
        }
        result_.relative_residual = r_norm / rhs_norm;
        result_.residual_history.push_back(result_.relative_residual);
        if (result_.relative_residual <= options_.tolerance)
            return finish(SolveStatus::converged, "initial guess already satisfies the tolerance");
        return true;
    }
    /// Ends iteration k with ||r_k|| = r_norm; false when the solve is over.
    bool end_iteration(int k, double r_norm)
    {
        result_.iterations = k;
        result_.relative_residual = r_norm / result_.rhs_norm;
        result_.residual_history.push_back(result_.relative_residual);
        if (options_.on_residual) options_.on_residual(k, result_.relative_residual);
        if (!std::isfinite(r_norm))
            return stop(SolveStatus::not_finite, StopReason::not_finite, k, r_norm);
        if (result_.relative_residual <= options_.tolerance)
            return finish(SolveStatus::converged, fmt::format("converged in {} iterations", k));
        if (k >= options_.max_iterations)
            return finish(SolveStatus::max_iterations,
                          max_iterations_message(method_, result_.relative_residual, k,
                                                 options_.tolerance));
        return true;
    }
    /// Stops in iteration k for reason; returns false.
    bool stop(SolveStatus status, StopReason reason, int k, double value)
    {
        result_.iterations = k;
        return finish(status, stop_message(method_, reason, k, value));
    }
    /// Checks a scalar of iteration k: false (stopped) if it is not finite.
    bool finite(int k, double value)
    {
        return std::isfinite(value) ? true : stop(SolveStatus::not_finite, StopReason::not_finite, k, value);
    }

    SolveResult take_result()
    {
        if (own_timer_) {
            result_.spmv_seconds = own_timer_->seconds();
        }
        return std::move(result_);
    }

private:
    bool finish(SolveStatus status, std::string message)
    {
        result_.status = status;
        result_.message = std::move(message);
        return false;
    }

    KrylovMethod method_;
    const LinearOperator<V>& a_;
    const SolveOptions& options_;
    const Preconditioner<V>* m_;
    const Communicator& comm_;
    LibraryBlas<V> blas_;
    std::unique_ptr<IntervalTimer> own_timer_;
    IntervalTimer* spmv_timer_ = nullptr;
    IntervalTimer* vector_timer_ = nullptr;
    IntervalTimer* reduction_timer_ = nullptr;
    SolveResult result_;
};

}  // namespace

template <typename V>
SolveResult reference_cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                         const SolveOptions& options, const Preconditioner<V>* m, const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const std::size_t n = b.size();
    ReferenceRun<V> run(KrylovMethod::cg, a, options, m, comm);
    const LibraryBlas<V>& blas = run.blas();
    Array<V> r(exec, n), p(exec, n), q(exec, n), z_own(exec, run.preconditioned() ? n : 0);
    Array<V>& z = run.preconditioned() ? z_own : r;
    const auto precondition = [&] {  // z = M^-1 r
        if (run.preconditioned()) run.precondition(r, z);
    };

    run.apply(x, r);  // r = b - A x
    {
        ScopedInterval t(run.vector_timer());
        blas.scal(V(-1), r);
        blas.axpy(V(1), b, r);
    }
    const double rhs_norm = run.nrm2(b);
    if (!run.start(rhs_norm, run.nrm2(r))) {
        if (rhs_norm == 0.0) fill(x, V(0));
        return run.take_result();
    }
    precondition();
    {
        ScopedInterval t(run.vector_timer());
        blas.copy(z, p);
    }
    double rho = run.dot(r, z);
    for (int k = 1;; ++k) {
        if (rho <= 0.0) {  // r.z > 0 for r != 0 when M is positive definite
            run.stop(SolveStatus::breakdown, StopReason::rz_not_positive, k, rho);
            break;
        }
        run.spmv(p, q);
        const double pq = run.dot(p, q);
        if (!run.finite(k, pq)) break;
        if (pq <= 0.0) {
            run.stop(SolveStatus::breakdown, StopReason::pap_not_positive, k, pq);
            break;
        }
        const V alpha = static_cast<V>(rho / pq);
        {
            ScopedInterval t(run.vector_timer());
            blas.axpy(alpha, p, x);
            blas.axpy(-alpha, q, r);
        }
        precondition();
        const double rho_new = run.dot(r, z);
        const double r_norm = run.preconditioned() ? run.nrm2(r) : std::sqrt(std::max(rho_new, 0.0));
        if (!run.end_iteration(k, r_norm)) break;
        if (!run.finite(k, rho_new)) break;
        ScopedInterval t(run.vector_timer());
        blas.scal(static_cast<V>(rho_new / rho), p);  // p = z + beta p
        blas.axpy(V(1), z, p);
        rho = rho_new;
    }
    return run.take_result();
}

template <typename V>
SolveResult reference_bicgstab(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                               const SolveOptions& options, const Preconditioner<V>* m, const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const std::size_t n = b.size();
    ReferenceRun<V> run(KrylovMethod::bicgstab, a, options, m, comm);
    const LibraryBlas<V>& blas = run.blas();
    const bool preconditioned = run.preconditioned();
    Array<V> r(exec, n), rhat(exec, n), p(exec, n), v(exec, n), s(exec, n), t(exec, n);
    Array<V> phat_own(exec, preconditioned ? n : 0), shat_own(exec, preconditioned ? n : 0);
    Array<V>& phat = preconditioned ? phat_own : p;  // M^-1 p and M^-1 s (right preconditioning)
    Array<V>& shat = preconditioned ? shat_own : s;
    IntervalTimer* vector = run.vector_timer();

    run.apply(x, r);  // r = b - A x
    {
        ScopedInterval timed(vector);
        blas.scal(V(-1), r);
        blas.axpy(V(1), b, r);
        blas.copy(r, rhat);
    }
    const double rhs_norm = run.nrm2(b);
    if (!run.start(rhs_norm, run.nrm2(r))) {
        if (rhs_norm == 0.0) fill(x, V(0));
        return run.take_result();
    }
    fill(p, V(0));
    fill(v, V(0));
    double rho_old = 1, alpha = 1, omega = 1;
    for (int k = 1;; ++k) {
        const double rho = run.dot(rhat, r);
        if (!run.finite(k, rho)) break;
        if (rho == 0.0) {
            run.stop(SolveStatus::breakdown, StopReason::rho_zero, k, rho);
            break;
        }
        const double beta = (rho / rho_old) * (alpha / omega);
        {
            ScopedInterval timed(vector);  // p = r + beta (p - omega v)
            blas.axpy(static_cast<V>(-omega), v, p);
            blas.scal(static_cast<V>(beta), p);
            blas.axpy(V(1), r, p);
        }
        if (preconditioned) run.precondition(p, phat);
        run.spmv(phat, v);
        const double rv = run.dot(rhat, v);
        if (!run.finite(k, rv)) break;
        if (rv == 0.0) {
            run.stop(SolveStatus::breakdown, StopReason::rhat_v_zero, k, rv);
            break;
        }
        alpha = rho / rv;
        {
            ScopedInterval timed(vector);  // s = r - alpha v
            blas.copy(r, s);
            blas.axpy(static_cast<V>(-alpha), v, s);
        }
        const double s_norm = run.nrm2(s);
        if (!run.finite(k, s_norm)) break;
        if (s_norm / rhs_norm <= options.tolerance) {  // half step: x += alpha phat, r = s
            {
                ScopedInterval timed(vector);
                blas.axpy(static_cast<V>(alpha), phat, x);
                blas.copy(s, r);
            }
            run.end_iteration(k, s_norm);
            break;
        }
        if (preconditioned) run.precondition(s, shat);
        run.spmv(shat, t);
        const double ts = run.dot(t, s);
        const double tt = run.dot(t, t);
        if (!run.finite(k, ts) || !run.finite(k, tt)) break;
        if (tt == 0.0 || ts == 0.0) {
            run.stop(SolveStatus::breakdown, StopReason::omega_zero, k, tt == 0.0 ? tt : ts);
            break;
        }
        omega = ts / tt;
        {
            ScopedInterval timed(vector);  // x += alpha phat + omega shat; r = s - omega t
            blas.axpy(static_cast<V>(alpha), phat, x);
            blas.axpy(static_cast<V>(omega), shat, x);
            blas.copy(s, r);
            blas.axpy(static_cast<V>(-omega), t, r);
        }
        if (!run.end_iteration(k, run.nrm2(r))) break;
        rho_old = rho;
    }
    return run.take_result();
}

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template SolveResult reference_cg(const LinearOperator<V>&, const Array<V>&, Array<V>&,     \
                                      const SolveOptions&, const Preconditioner<V>*,            \
                                      const Communicator&);                                     \
    template SolveResult reference_bicgstab(const LinearOperator<V>&, const Array<V>&,          \
                                            Array<V>&, const SolveOptions&,                     \
                                            const Preconditioner<V>*, const Communicator&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
