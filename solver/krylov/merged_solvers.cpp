// The merged CG and BiCGSTAB: the SpMV stays the operator's own (any format), everything else
// is the fused kernels of merged_kernels.hpp with the scalars kept on the device. The host
// queues batches of check_every iterations (optionally replayed from a CUDA graph) and reads
// the state through the IterationRunner's mailbox, keeping one batch in flight while the
// solve is far from converging. On several processes every fused reduction is followed by the
// communicator's all-reduce of its totals and the scalar step (MergedSetup::finish), all
// queued on the stream like the kernels.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "solver/krylov/cg_product.hpp"
#include "solver/krylov/iteration_runner.hpp"
#include "solver/krylov/krylov_variants.hpp"
#include "solver/krylov/merged_kernels.hpp"
#include "solver/krylov/merged_workspace.hpp"
#include "solver/krylov/resident_cg.hpp"

namespace gpufem {
namespace {


/// What the iteration loop ended with.
struct LoopOutcome {
    KrylovScalars state;
    int host_reads = 0;
    bool graph_used = false;
};

/// Whether to keep one batch in flight behind the one being read: only while convergence is
/// predicted more than two batches away (from the rate between the last two reads), since the
/// batch queued after the stop runs as no-ops but still runs its products and preconditioner.
/// Never on where the iterations run as they are queued (the CPU).
class LookAhead {
public:
    /// allowed: whether batches may be queued ahead at all; tolerance: the solve's; check:
    /// iterations a batch.
    LookAhead(bool allowed, double tolerance, int check)
        : allowed_(allowed), on_(allowed), tolerance_(tolerance), check_(check)
    {
    }
    /// Whether to queue the next batch before reading the last.
    bool on() const { return on_; }
    /// Updates the forecast with the state just read.
    void update(const KrylovScalars& s)
    {
        const double residual = s.iteration < 1 ? 1.0 : std::sqrt(s.rr) / s.rhs_norm;
        if (allowed_ && previous_ && s.iteration > previous_->first && residual > 0) {
            const double rate = std::pow(residual / previous_->second, 1.0 / (s.iteration - previous_->first));
            const double remaining = rate < 1 ? std::log(tolerance_ / residual) / std::log(rate) : 1e30;
            on_ = remaining > 2.0 * check_;
        }
        previous_ = std::make_pair(s.iteration, residual);
    }

private:
    bool allowed_;
    bool on_;
    double tolerance_;
    int check_;
    std::optional<std::pair<int, double>> previous_;  // (iteration, residual) of an earlier read
};

/// The iteration loop's account in the debug log: iterations queued, reads, and when the
/// first and the last read came (from start).
void log_loop(int queued, int reads, std::chrono::steady_clock::time_point start,
              std::chrono::steady_clock::time_point first_read)
{
    using seconds = std::chrono::duration<double>;
    spdlog::debug("solver: {} iterations queued, {} reads, the first {:.4f} s and the last {:.4f} s into the loop",
                  queued, reads, seconds(first_read - start).count(),
                  seconds(std::chrono::steady_clock::now() - start).count());
}

/// Queues iterations in batches until the device state says stop. iteration() queues one
/// iteration; capturable() tells whether the operator can be captured in a graph now.
template <typename Iteration, typename Capturable>
LoopOutcome run_iterations(const ExecPtr& exec, IterationRunner& runner, const MergedWorkspace& ws,
                           const KrylovScalars& started, const SolveOptions& options,
                           bool use_graph, Iteration&& iteration, Capturable&& capturable)
{
    LoopOutcome out;
    out.state = started;
    if (started.status != state_running) return out;
    const int check = exec->is_cuda() ? options.check_every : 1;
    bool graph_ready = false;
    std::deque<int> in_flight;
    int slot = 0;
    int queued = 0;
    bool stopped = false;
    const auto loop_start = std::chrono::steady_clock::now();
    auto first_read = loop_start;
    const auto read_oldest = [&] {
        const KrylovScalars s = runner.wait_state(in_flight.front());
        in_flight.pop_front();
        ++out.host_reads;
        if (out.host_reads == 1) first_read = std::chrono::steady_clock::now();
        out.state = s;
        if (s.status != state_running) stopped = true;
        if (options.on_residual && s.rhs_norm > 0)
            options.on_residual(s.iteration, std::sqrt(s.rr) / s.rhs_norm);
        return s;
    };
    LookAhead ahead(exec->is_cuda(), options.tolerance, check);
    while (!stopped && queued < options.max_iterations) {
        // Near convergence a batch is read before the next is queued.
        if (!ahead.on() && !in_flight.empty()) {
            ahead.update(read_oldest());
            continue;
        }
        const int batch = std::min(check, options.max_iterations - queued);
        if (use_graph && !graph_ready && batch == check && capturable()) {
            graph_ready = runner.capture([&] { for (int i = 0; i < batch; ++i) iteration(); });
            if (!graph_ready) {
                spdlog::warn("solver: CUDA graph not used ({}); queuing iterations one by one",
                             runner.graph_failure());
                use_graph = false;
            }
        }
        if (graph_ready && batch == check) {
            runner.replay();
            out.graph_used = true;
        } else {
            for (int i = 0; i < batch; ++i) iteration();
        }
        queued += batch;
        runner.post_state(ws.state, slot);
        in_flight.push_back(slot);
        slot ^= 1;
        if (ahead.on() && in_flight.size() < 2) continue;
        ahead.update(read_oldest());
    }
    while (!in_flight.empty()) read_oldest();
    log_loop(queued, out.host_reads, loop_start, first_read);
    return out;
}

/// Fills the result from the final device state.
SolveResult make_result(KrylovMethod method, const KrylovScalars& s, const MergedBuffers& buffers,
                        const SolveOptions& options)
{
    SolveResult result;
    result.iterations = s.iteration;
    result.rhs_norm = s.rhs_norm;
    result.residual_history = buffers.history(s.iteration);
    result.relative_residual = result.residual_history.back();
    result.initial_residual = result.residual_history.front() * s.rhs_norm;
    const auto reason = static_cast<StopReason>(s.reason);
    switch (s.status) {
    case state_converged:
        result.status = SolveStatus::converged;
        result.message = reason == StopReason::rhs_zero
                             ? stop_message(method, reason, 0, 0)
                             : s.iteration == 0 ? "initial guess already satisfies the tolerance"
                                                : fmt::format("converged in {} iterations", s.iteration);
        break;
    case state_breakdown:
        result.status = SolveStatus::breakdown;
        result.iterations = s.stop_iteration;
        result.message = stop_message(method, reason, s.stop_iteration, s.stop_value);
        break;
    case state_not_finite:
        result.status = SolveStatus::not_finite;
        result.iterations = s.stop_iteration;
        result.message = s.stop_iteration == 0
                             ? "the initial residual is not finite"
                             : stop_message(method, reason, s.stop_iteration, s.stop_value);
        break;
    default:
        result.status = SolveStatus::max_iterations;
        result.message = max_iterations_message(method, result.relative_residual, s.iteration,
                                                options.tolerance);
        break;
    }
    return result;
}

/// Per-SpMV timer for a merged solve (null when not timed), and the result's clock label.
struct SpmvTiming {
    std::unique_ptr<IntervalTimer> own;
    IntervalTimer* timer = nullptr;
    std::string clock;
};

SpmvTiming make_spmv_timing(const ExecPtr& exec, const SolveOptions& options, bool use_graph)
{
    SpmvTiming t;
    if (options.phases) {
        t.timer = options.phases->spmv;
        t.clock = "phase timers";
    } else if (!options.time_spmv) {
        t.clock = "off";
    } else if (use_graph) {
        t.clock = "not recorded (CUDA graph; set solver.cuda_graph: off to time every SpMV)";
    } else {
        t.own = make_interval_timer(exec);
        t.timer = t.own.get();
        t.clock = t.own->clock();
    }
    return t;
}

bool graph_wanted(const Executor& exec, const SolveOptions& options, std::size_t rows)
{
    if (!exec.is_cuda() || options.phases) return false;
    if (options.graph == GraphMode::on) return true;
    return options.graph == GraphMode::automatic && static_cast<long long>(rows) < graph_auto_rows;
}

/// The result of a merged solve: state and history from the device, x = 0 for b = 0, the
/// SpMV times of the iterations that counted (those queued after the stop are dropped).
template <typename V>
SolveResult finish(KrylovMethod method, const LoopOutcome& out, const MergedBuffers& buffers,
                   const SolveOptions& options, const SpmvTiming& timing, Array<V>& x)
{
    SolveResult result = make_result(method, out.state, buffers, options);
    if (static_cast<StopReason>(out.state.reason) == StopReason::rhs_zero) fill(x, V(0));
    result.host_reads = out.host_reads + 1;
    result.graph_used = out.graph_used;
    result.spmv_clock = timing.clock;
    if (timing.own) {
        result.spmv_seconds = timing.own->seconds();
        const std::size_t count = static_cast<std::size_t>(spmvs_per_iteration(method)) *
                                  static_cast<std::size_t>(result.iterations);
        if (result.spmv_seconds.size() > count) result.spmv_seconds.resize(count);
    }
    return result;
}

IntervalTimer* phase(const SolveOptions& options, IntervalTimer* SolverPhaseTimers::*which)
{
    return options.phases ? options.phases->*which : nullptr;
}

/// True when the iterations can be captured in a CUDA graph now: the operator's, and the
/// preconditioner's apply when it runs on its own (a diagonal M folded into the fused kernels
/// is never applied).
template <typename V>
bool capturable(const LinearOperator<V>& a, const Preconditioner<V>* m)
{
    const bool applied = m && !m->inverse_diagonal();
    return a.graph_capturable() && (!applied || m->graph_capturable());
}

/// The options the iteration loop runs with: after a preconditioner that costs more than the
/// product (one apply moving more bytes than an SpMV: any multigrid cycle, a float one too)
/// the state is read after every iteration, so that at most one iteration beyond convergence
/// is queued instead of up to check_every - 1 (the read is pipelined with the next iteration
/// and costs far less than one apply).
template <typename V>
SolveOptions loop_options(const SolveOptions& options, const LinearOperator<V>& a,
                          const Preconditioner<V>* m)
{
    SolveOptions loop = options;
    if (m && !m->inverse_diagonal() && m->apply_bytes() > a.spmv_min_bytes())
        loop.check_every = 1;
    return loop;
}

/// What both merged solvers set up: the preconditioner's path (a diagonal M folded into the
/// fused updates through d; any other applied on its own), the device buffers, the runner,
/// the graph decision and the timers.
template <typename V>
struct MergedSetup {
    MergedSetup(const LinearOperator<V>& a, const Preconditioner<V>* m, std::size_t n,
                const SolveOptions& options, const Communicator& comm)
        : entered(std::chrono::steady_clock::now()),
          d(m && m->inverse_diagonal() ? m->inverse_diagonal()->data() : nullptr),
          general(m && !m->inverse_diagonal()),
          comm(comm),
          buffers(a.executor(), n, options.tolerance, options.max_iterations, comm.reduces()),
          runner(make_iteration_runner(a.executor())),
          use_graph(graph_wanted(*a.executor(), options, n)),
          timing(make_spmv_timing(a.executor(), options, use_graph)),
          vector(phase(options, &SolverPhaseTimers::vector)),
          reduction(phase(options, &SolverPhaseTimers::reduction))
    {
    }
    /// Posts the state after the start kernels and waits for it.
    KrylovScalars started()
    {
        runner->post_state(buffers.workspace().state, 0);
        const KrylovScalars s = runner->wait_state(0);
        using seconds = std::chrono::duration<double>;
        spdlog::debug("solver: buffers made in {:.4f} s, the start kernels done in {:.4f} s",
                      seconds(made - entered).count(), seconds(std::chrono::steady_clock::now() - made).count());
        return s;
    }
    /// After a kernel whose reduction ends in step: on several processes its totals are
    /// summed over them and the step runs on its own; on one the kernel has done it.
    void finish(const Executor& e, ScalarStep step) const
    {
        finish_reduction_across(e, buffers.workspace(), comm, step);
    }

    std::chrono::steady_clock::time_point entered;  ///< when the solver began
    const V* d;    ///< the diagonal M^-1, or nullptr
    bool general;  ///< M applied between the kernels
    const Communicator& comm;
    MergedBuffers buffers;
    std::unique_ptr<IterationRunner> runner;
    bool use_graph;
    SpmvTiming timing;
    IntervalTimer* vector;
    IntervalTimer* reduction;
    /// When the members above were made (declared last, so initialised after them).
    std::chrono::steady_clock::time_point made = std::chrono::steady_clock::now();
};

/// One iteration of CG with its direction made in the product's pass (a diagonal M or none, one
/// process): the product (p, q and the partials of p.q), then one kernel for alpha, x, r, z =
/// M^-1 r (kept only with M) and the scalar step.
template <typename V>
void direction_iteration(const Executor& e, const MergedSetup<V>& setup, CgProduct<V>& product,
                         const Array<V>& z_or_r, Array<V>& p, Array<V>& q, Array<V>& x, Array<V>& r, Array<V>& z)
{
    const MergedWorkspace& ws = setup.buffers.workspace();
    {
        ScopedInterval t(setup.timing.timer);
        product.direction(ws, z_or_r, p, q);
    }
    ScopedInterval t(setup.vector);
    const Array<double>& partials = product.partials();
    V* z_out = setup.d ? z.data() : nullptr;
    GPUFEM_DISPATCH(e, cg_update_partials(e, ws, p.size(), partials.size(), partials.data(), p.data(), q.data(),
                                          setup.d, x.data(), r.data(), z_out));
}

/// Whether merged CG runs the whole solve in one resident kernel: asked for (ResidentMode::on,
/// or automatic on CUDA below resident_cg_auto_rows rows), no phase timers, and possible: a
/// bdia operator, a diagonal M or none, one process, slabs that fit the device's resident
/// blocks. Asked for explicitly but not possible, the log says why.
template <typename V>
bool resident_wanted(const LinearOperator<V>& a, const SolveOptions& options, bool general, bool split)
{
    const Executor& e = *a.executor();
    if (options.resident == ResidentMode::off || options.phases) return false;
    if (options.resident == ResidentMode::automatic && (!e.is_cuda() || a.rows() >= resident_cg_auto_rows))
        return false;
    const Bdia<V>* bands = a.stored_bdia();
    const char* why = nullptr;
    if (!bands)
        why = "the operator's format is not bdia";
    else if (general)
        why = "the preconditioner is neither Jacobi nor none";
    else if (split)
        why = "the system spans several processes";
    else if (!GPUFEM_DISPATCH(e, cg_resident_fits<V>(e, bands->slabs())))
        why = "the matrix has more rows than the device's resident blocks hold";
    if (!why) return true;
    if (options.resident == ResidentMode::on)
        spdlog::warn("solver: CG in one resident kernel not used ({}); the usual kernels instead", why);
    return false;
}

/// The whole CG solve in one resident kernel, from the started state (scratch: a.rows values);
/// reads the final state. Nothing runs when the start has stopped the solve.
template <typename V>
LoopOutcome run_resident(const LinearOperator<V>& a, MergedSetup<V>& setup, const KrylovScalars& started,
                         const SolveOptions& options, Array<V>& x, Array<V>& r, Array<V>& scratch)
{
    LoopOutcome out;
    out.state = started;
    if (started.status != state_running) return out;
    const Executor& e = *a.executor();
    const MergedWorkspace& ws = setup.buffers.workspace();
    GPUFEM_DISPATCH(e, cg_resident_bdia(e, ws, *a.stored_bdia(), setup.d, x.data(), r.data(), scratch.data()));
    setup.runner->post_state(ws.state, 0);
    out.state = setup.runner->wait_state(0);
    out.host_reads = 1;
    if (options.on_residual && out.state.rhs_norm > 0)
        options.on_residual(out.state.iteration, std::sqrt(out.state.rr) / out.state.rhs_norm);
    return out;
}

}  // namespace

template <typename V>
SolveResult merged_cg(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                      const SolveOptions& options, const Preconditioner<V>* m, const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const Executor& e = *exec;
    const std::size_t n = b.size();
    MergedSetup<V> setup(a, m, n, options, comm);
    const MergedWorkspace& ws = setup.buffers.workspace();
    const V* d = setup.d;
    const bool general = setup.general;
    CgProduct<V> product(a, options.fused_dot);
    const bool resident = resident_wanted(a, options, general, ws.split);
    // With a diagonal M or none on one process, the product makes the direction and p.q in one
    // pass and one kernel does the rest: two kernels an iteration. z = M^-1 r is kept when M
    // is there (the product's input), else the product reads r.
    const bool direction = options.fused_direction && !general && product.fused() && !ws.split;
    Array<V> r(exec, n), p(exec, n), q(exec, n), z(exec, general || (direction && d) ? n : 0);
    const Array<V>& z_or_r = direction && !d ? r : z;

    a.apply(x, r);
    GPUFEM_DISPATCH(e, cg_start(e, ws, n, b.data(), d, r.data(), direction && d ? z.data() : p.data()));
    setup.finish(e, ScalarStep::cg_start);
    if (general) {  // z0 = M^-1 r0, rho = r0.z0, p = z0
        m->apply(r, z);
        GPUFEM_DISPATCH(e, cg_rho(e, ws, n, r.data(), z.data(), true));
        setup.finish(e, ScalarStep::cg_beta_start);
        GPUFEM_DISPATCH(e, cg_update_p(e, ws, n, z.data(), static_cast<const V*>(nullptr), p.data()));
    }
    const KrylovScalars started = setup.started();
    if (resident) {  // p: the kernel's scratch (its p lives in registers)
        const LoopOutcome out = run_resident(a, setup, started, options, x, r, p);
        SolveResult result = finish<V>(KrylovMethod::cg, out, setup.buffers, options, setup.timing, x);
        result.spmv_clock = "not recorded (one resident kernel)";
        result.resident = started.status == state_running;
        return result;
    }
    const auto iteration = [&] {
        if (direction) return direction_iteration(e, setup, product, z_or_r, p, q, x, r, z);
        {
            ScopedInterval t(setup.timing.timer);
            product.apply(p, q);
        }
        {
            ScopedInterval t(setup.reduction);
            product.alpha(ws, p, q);
            setup.finish(e, ScalarStep::cg_alpha);
        }
        if (!general) {
            ScopedInterval t(setup.vector);
            GPUFEM_DISPATCH(e, cg_update_xr(e, ws, n, p.data(), q.data(), d, x.data(), r.data()));
            setup.finish(e, ScalarStep::cg_finish);
            GPUFEM_DISPATCH(e, cg_update_p(e, ws, n, r.data(), d, p.data()));
            return;
        }
        {
            ScopedInterval t(setup.vector);  // the preconditioner's apply counts as vector work
            GPUFEM_DISPATCH(e, cg_update_xr_residual(e, ws, n, p.data(), q.data(), x.data(), r.data()));
            setup.finish(e, ScalarStep::residual);
            m->apply(r, z);
        }
        {
            ScopedInterval t(setup.reduction);
            GPUFEM_DISPATCH(e, cg_rho(e, ws, n, r.data(), z.data(), false));
            setup.finish(e, ScalarStep::cg_beta);
        }
        ScopedInterval t(setup.vector);
        GPUFEM_DISPATCH(e, cg_update_p(e, ws, n, z.data(), static_cast<const V*>(nullptr), p.data()));
    };
    const LoopOutcome out = run_iterations(exec, *setup.runner, ws, started,
                                           loop_options(options, a, m), setup.use_graph,
                                           iteration, [&] { return capturable(a, m); });
    SolveResult result = finish<V>(KrylovMethod::cg, out, setup.buffers, options, setup.timing, x);
    result.fused_dot = product.fused();
    result.fused_direction = direction;
    return result;
}

template <typename V>
SolveResult merged_cg_single_reduction(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                                       const SolveOptions& options, const Preconditioner<V>* m,
                                       const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const Executor& e = *exec;
    const std::size_t n = b.size();
    MergedSetup<V> setup(a, m, n, options, comm);
    const MergedWorkspace& ws = setup.buffers.workspace();
    const V* d = setup.d;
    const bool general = setup.general;
    // z = M^-1 r: the product's input (r itself without a preconditioner); s = A z.
    Array<V> r(exec, n), p(exec, n), q(exec, n), s(exec, n), z(exec, m ? n : 0);
    fill(p, V(0));  // beta = 0 at the start: p = z, q = s
    fill(q, V(0));
    const Array<V>& z_or_r = m ? z : r;
    const V* z_dots = m ? z.data() : nullptr;

    a.apply(x, r);
    GPUFEM_DISPATCH(e, cg1_start(e, n, b.data(), d, r.data(), d ? z.data() : nullptr));
    if (general) m->apply(r, z);
    a.apply(z_or_r, s);
    GPUFEM_DISPATCH(e, cg1_dots(e, ws, n, b.data(), r.data(), z_dots, s.data()));
    setup.finish(e, ScalarStep::cg1_start);
    const KrylovScalars started = setup.started();
    const auto iteration = [&] {
        {
            ScopedInterval t(setup.vector);  // a general M's apply counts as vector work
            GPUFEM_DISPATCH(e, cg1_update(e, ws, n, general ? z.data() : nullptr, d, s.data(), p.data(), q.data(),
                                          x.data(), r.data(), d ? z.data() : nullptr));
            if (general) m->apply(r, z);
        }
        {
            ScopedInterval t(setup.timing.timer);
            a.apply(z_or_r, s);
        }
        ScopedInterval t(setup.reduction);
        GPUFEM_DISPATCH(e, cg1_dots(e, ws, n, static_cast<const V*>(nullptr), r.data(), z_dots, s.data()));
        setup.finish(e, ScalarStep::cg1_step);
    };
    const LoopOutcome out = run_iterations(exec, *setup.runner, ws, started,
                                           loop_options(options, a, m), setup.use_graph,
                                           iteration, [&] { return capturable(a, m); });
    return finish<V>(KrylovMethod::cg, out, setup.buffers, options, setup.timing, x);
}

template <typename V>
SolveResult merged_bicgstab(const LinearOperator<V>& a, const Array<V>& b, Array<V>& x,
                            const SolveOptions& options, const Preconditioner<V>* m,
                            const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const Executor& e = *exec;
    const std::size_t n = b.size();
    MergedSetup<V> setup(a, m, n, options, comm);
    const MergedWorkspace& ws = setup.buffers.workspace();
    const V* d = setup.d;
    const bool general = setup.general;
    IntervalTimer* vector = setup.vector;
    IntervalTimer* reduction = setup.reduction;
    Array<V> r(exec, n), rhat(exec, n), p(exec, n), v(exec, n), s(exec, n), t(exec, n);
    Array<V> phat_own(exec, m ? n : 0), shat_own(exec, m ? n : 0);
    Array<V>& phat = m ? phat_own : p;  // SpMV inputs: M^-1 p and M^-1 s
    Array<V>& shat = m ? shat_own : s;

    a.apply(x, r);
    GPUFEM_DISPATCH(e, bicgstab_start(e, ws, n, b.data(), r.data(), rhat.data(), p.data(), v.data()));
    setup.finish(e, ScalarStep::bicgstab_start);
    const KrylovScalars started = setup.started();
    const auto spmv = [&](const Array<V>& in, Array<V>& out) {
        ScopedInterval timed(setup.timing.timer);
        a.apply(in, out);
    };
    const auto iteration = [&] {
        {
            ScopedInterval timed(vector);
            GPUFEM_DISPATCH(e, bicgstab_update_p(e, ws, n, r.data(), v.data(), d, p.data(), phat.data()));
            if (general) m->apply(p, phat);
        }
        spmv(phat, v);
        {
            ScopedInterval timed(reduction);
            GPUFEM_DISPATCH(e, bicgstab_alpha(e, ws, n, rhat.data(), v.data()));
            setup.finish(e, ScalarStep::bicgstab_alpha);
        }
        {
            ScopedInterval timed(vector);
            GPUFEM_DISPATCH(e, bicgstab_update_s(e, ws, n, r.data(), v.data(), d, s.data(), shat.data()));
            if (general) m->apply(s, shat);
        }
        spmv(shat, t);
        {
            ScopedInterval timed(reduction);
            GPUFEM_DISPATCH(e, bicgstab_omega(e, ws, n, s.data(), t.data()));
            setup.finish(e, ScalarStep::bicgstab_omega);
        }
        ScopedInterval timed(vector);
        GPUFEM_DISPATCH(e, bicgstab_update_xr(e, ws, n, rhat.data(), phat.data(), shat.data(),
                                            s.data(), t.data(), x.data(), r.data()));
        setup.finish(e, ScalarStep::bicgstab_finish);
    };
    const LoopOutcome out = run_iterations(exec, *setup.runner, ws, started,
                                           loop_options(options, a, m), setup.use_graph,
                                           iteration, [&] { return capturable(a, m); });
    return finish<V>(KrylovMethod::bicgstab, out, setup.buffers, options, setup.timing, x);
}

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template SolveResult merged_cg(const LinearOperator<V>&, const Array<V>&, Array<V>&,        \
                                   const SolveOptions&, const Preconditioner<V>*,               \
                                   const Communicator&);                                        \
    template SolveResult merged_cg_single_reduction(const LinearOperator<V>&, const Array<V>&, Array<V>&, \
                                                    const SolveOptions&, const Preconditioner<V>*, \
                                                    const Communicator&);                          \
    template SolveResult merged_bicgstab(const LinearOperator<V>&, const Array<V>&, Array<V>&,  \
                                         const SolveOptions&, const Preconditioner<V>*,         \
                                         const Communicator&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
