#include "solver/run/format_choice.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/operator_levels.hpp"
#include "linalg/bdia.hpp"
#include "linalg/format_build.hpp"
#include "linalg/rank_messages.hpp"
#include "linalg/reordering.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/run/pipeline.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// A format whose first batch is this many times slower than the best so far is not timed
/// further (it cannot win; its first batch stands for it).
constexpr double hopeless_factor = 3;

/// bdia's band may store at most this many times the CSR's bytes when auto tries it.
constexpr double band_limit = 4;

/// x rotated over this many copies, so that it is not served from the cache between SpMVs
/// (as in a solve, where it changes every iteration; `bench spmv` does the same).
constexpr int x_copies = 3;

/// Median time of one SpMV of op: warm-up first (csr's tuner settles there), then 7 batches
/// (3 on the CPU) of 5 synchronised SpMVs, wall clock, x rotated over its copies; one batch
/// only when that is hopeless_factor x slower than best_so_far.
template <typename V>
double median_spmv_seconds(const LinearOperator<V>& op, const std::vector<Array<V>>& x, Array<V>& y,
                           double best_so_far)
{
    const ExecPtr& exec = op.executor();
    const int warmup = exec->is_cuda() ? 30 : 2;
    for (int i = 0; i < warmup; ++i) op.apply(x[i % x.size()], y);
    std::vector<double> batches;
    const int count = exec->is_cuda() ? 7 : 3;  // CPU SpMVs are slow and steadier
    for (int b = 0; b < count; ++b) {
        exec->synchronize();
        const auto start = clock_type::now();
        for (int i = 0; i < 5; ++i) op.apply(x[i % x.size()], y);
        exec->synchronize();
        batches.push_back(seconds_since(start) / 5);
        if (b == 0 && batches[0] > hopeless_factor * best_so_far) break;
    }
    return median(batches);
}

/// Applications of the system's operator per iteration of the case's solver: the Krylov
/// method's, plus a multigrid cycle's on the finest level (Chebyshev or Jacobi steps before
/// and after, and the residual).
double spmvs_per_solver_iteration(const SolverSpec& solver)
{
    double spmvs = spmvs_per_iteration(solver.method);
    if (solver.preconditioner->fine_applies) spmvs *= 1 + solver.preconditioner->fine_applies(solver);
    return spmvs;
}

/// Iterations of each run that estimates the rest, and the most they take together.
constexpr int estimate_iterations = 60;
constexpr int estimate_limit = 200;
/// A lower bound of the time a format's host ordering takes per stored non-zero (staircase
/// measured 39 ns here, 50-140 on the H100's host): a format that orders on the host is not
/// tried when even this cannot pay off.
constexpr double host_ordering_seconds_per_nnz = 20e-9;

/// The iterations the solve is expected to take: the user's hint, the assumption for
/// multigrid, or a short run of the case's Krylov method (with Jacobi when the case uses it)
/// on op extrapolated at its mean rate of residual reduction.
template <typename V>
double expected_iterations(const LinearSystem<V>& system, const LinearOperator<V>& op,
                           const CaseSpec& spec, std::string& source, const Communicator& comm = serial_communicator())
{
    const SolverSpec& solver = spec.solver;
    if (spec.auto_iterations > 0) {
        source = "auto_iterations";
        return spec.auto_iterations;
    }
    if (solver.preconditioner->assumed_iterations > 0) {
        source = fmt::format("assumed for {}", solver.preconditioner->name);
        return solver.preconditioner->assumed_iterations;
    }
    // CG's residual falls fastest (or even rises) in its first iterations, then settles to
    // the rate its condition sets: the rate is taken over the second half of a run of
    // estimate_iterations. When that half made no progress, the run goes on from its last
    // iterate (a restart, its own halves measured again) up to estimate_limit iterations.
    SolveOptions options = solve_options(solver);
    options.max_iterations = std::min(estimate_iterations, solver.max_iterations);
    options.time_spmv = false;
    options.on_residual = nullptr;
    Array<V> x = system.initial_guess.clone_to(op.executor());
    // Only preconditioners measured by a short run come here (no hierarchy to set up).
    const SetUpPreconditioner<V> m = solver.preconditioner->build(
        PreconditionerSetup<V>{op, nullptr, nullptr, Array<index_type>{}, false, solver, nullptr});
    int iterations = 0;
    double residual = 1, rate = 1;
    while (true) {
        const SolveResult r = solve(solver.method, solver.variant, op, system.rhs, x, options, m.preconditioner.get(), comm);
        iterations += r.iterations;
        residual = r.relative_residual;
        if (r.converged() || r.iterations == 0) {
            source = fmt::format("a short run converged in {}", iterations);
            return std::max(1, iterations);
        }
        const std::vector<double>& h = r.residual_history;
        const std::size_t half = h.size() / 2;
        if (h.size() > 2 && h[half] > 0)
            rate = std::pow(std::max(h.back(), 1e-300) / h[half], 1.0 / static_cast<double>(h.size() - 1 - half));
        if (rate < 1 || iterations >= estimate_limit || iterations + options.max_iterations > solver.max_iterations)
            break;
    }
    double estimate = solver.max_iterations;
    if (rate < 1 && rate > 0) estimate = iterations + std::log(solver.tolerance / residual) / std::log(rate);
    estimate = std::clamp(estimate, static_cast<double>(iterations), static_cast<double>(solver.max_iterations));
    source = fmt::format("estimated from {} iterations (residual {:.2e}, rate {:.4f} over the last half)",
                         iterations, residual, rate);
    return std::ceil(estimate);
}

}  // namespace

std::vector<const FormatEntry*> auto_format_candidates(Backend backend)
{
    std::vector<const FormatEntry*> out;
    for (const FormatEntry& entry : assembled_formats().entries())
        if (entry.available_on(backend) && entry.auto_candidate) out.push_back(&entry);
    return out;
}

std::string FormatChoice::table() const
{
    std::string s = fmt::format("format auto: {} expected SpMVs ({} iterations, {}); chose {} in {:.3f} s{}\n",
                                expected_spmvs, expected_iterations, iterations_source, format, seconds,
                                reorder_seconds > 0 ? fmt::format(" (reordering once: {:.3f} s)", reorder_seconds) : "");
    s += fmt::format("  {:<14} {:>12} {:>12} {:>14}\n", "format", "convert ms", "SpMV us", "expected ms");
    for (const FormatCandidate& c : candidates) {
        if (!c.error.empty()) {
            s += fmt::format("  {:<14} not built: {}\n", c.format, c.error);
            continue;
        }
        s += fmt::format("  {:<14} {:>12.3f} {:>12.2f} {:>14.3f}{}\n", c.format, c.convert_seconds * 1e3,
                         c.spmv_seconds * 1e6, c.expected_seconds * 1e3, c.format == format ? "  <-" : "");
    }
    return s;
}

nlohmann::json FormatChoice::to_json() const
{
    nlohmann::json rows = nlohmann::json::array();
    for (const FormatCandidate& c : candidates)
        rows.push_back({{"format", c.format},
                        {"convert_seconds", c.convert_seconds},
                        {"spmv_seconds", c.spmv_seconds},
                        {"expected_seconds", c.expected_seconds},
                        {"error", c.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.error)}});
    return {{"chosen", format},
            {"expected_spmvs", expected_spmvs},
            {"expected_iterations", expected_iterations},
            {"iterations_source", iterations_source},
            {"seconds", seconds},
            {"reorder_seconds", reorder_seconds},
            {"candidates", rows}};
}

namespace {

/// The case's reordering once, for every candidate (it does not change the choice); the
/// options the candidates are built with (no reordering left, and the limits of the formats
/// that can refuse a matrix: one that stores more than band_limit x the CSR's bytes cannot win
/// a bandwidth-bound SpMV, so those that can tell, bdia's band, refuse it after their ordering,
/// unless the case set its own limit).
/// The formats that can refuse a matrix limited to band_limit x csr_bytes in options (unless
/// the case set its own limit).
void limit_candidates(FormatOptions& options, double csr_bytes)
{
    for (const FormatEntry& entry : assembled_formats().entries())
        if (entry.limit_bytes) entry.limit_bytes(options, static_cast<std::size_t>(band_limit * csr_bytes));
}

template <typename V>
FormatOptions reorder_once(LinearSystem<V>& system, const CaseSpec& spec,
                           std::optional<ReorderedMatrix<V>>& reordering, FormatChoice& choice)
{
    FormatOptions options = spec.format_options;
    if (options.reordering() != Reordering::none) {
        reordering = reorder_matrix(std::move(system.matrix), options.reordering());
        system.matrix = std::move(reordering->matrix);
        choice.reorder_seconds = reordering->seconds;
        options.set_reordering(Reordering::none);
    }
    limit_candidates(options, static_cast<double>(system.matrix.bytes_stored()));
    return options;
}

/// Builds and times the candidates on one matrix, keeping the fastest SpMV so far and the
/// baseline's build (the iteration estimate's short run uses it).
template <typename V>
class CandidateTrials {
public:
    CandidateTrials(const Csr<V>& a, FormatOptions options)
        : a_(a), options_(std::move(options)), y_(a.executor(), static_cast<std::size_t>(a.rows))
    {
        for (int c = 0; c < x_copies; ++c)
            x_.push_back(Array<V>::from_host(a.executor(), std::vector<V>(static_cast<std::size_t>(a.cols), V(1 + c))));
    }
    /// Builds entry's format and times its SpMV into c (its error when it cannot be built).
    void run(const FormatEntry& entry, FormatCandidate& c)
    {
        try {
            FormatBuild<V> b = build_format(entry, a_.clone_to(a_.executor()), options_);
            // The baseline is the assembled matrix itself: no conversion to count.
            c.convert_seconds = entry.baseline ? 0.0 : b.convert_seconds;
            c.spmv_seconds = median_spmv_seconds(*b.op, x_, y_, fastest_);
            fastest_ = std::min(fastest_, c.spmv_seconds);
            if (entry.baseline) baseline_.emplace(std::move(b));
        } catch (const std::exception& e) {
            c.error = e.what();
        }
    }
    double fastest() const { return fastest_; }
    /// The baseline's build (null until it was built).
    const FormatBuild<V>* baseline() const { return baseline_ ? &*baseline_ : nullptr; }

private:
    const Csr<V>& a_;
    FormatOptions options_;
    std::vector<Array<V>> x_;
    Array<V> y_;
    double fastest_ = std::numeric_limits<double>::infinity();
    std::optional<FormatBuild<V>> baseline_;
};

/// The iterations the case's solve is expected to take, estimated on the baseline's operator
/// in the (reordered) matrix's numbering.
template <typename V>
double expected_iterations_in_order(const LinearSystem<V>& system, const std::optional<ReorderedMatrix<V>>& reordering,
                                 const LinearOperator<V>& op, const CaseSpec& spec, std::string& source)
{
    const ExecPtr exec = system.matrix.executor();
    LinearSystem<V> in_order;
    in_order.rhs = system.rhs.clone_to(exec);
    in_order.initial_guess = system.initial_guess.clone_to(exec);
    if (reordering) {
        permute_vector(reordering->permutation, system.rhs, in_order.rhs, false);
        permute_vector(reordering->permutation, system.initial_guess, in_order.initial_guess, false);
    }
    return expected_iterations(in_order, op, spec, source);
}

/// Throws when the baseline, which the iteration estimate runs on, could not be built.
void require_baseline(bool built, const std::vector<const FormatEntry*>& candidates, const FormatChoice& choice)
{
    if (built) return;
    std::string why;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (candidates[i]->baseline) why = choice.candidates[i].error;
    throw std::runtime_error("format auto: " + baseline_format().name +
                             ", which the iteration estimate runs on, could not be built: " + why);
}

/// The candidates that order on the host, tried where even least (a lower bound of their
/// ordering's time) can pay off within the expected SpMVs of fastest each; the others marked
/// not tried.
template <typename V>
void try_host_ordering(const std::vector<const FormatEntry*>& candidates, double least, double fastest,
                       CandidateTrials<V>& trials, FormatChoice& choice)
{
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (!candidates[i]->orders_on_host) continue;
        if (least >= choice.expected_spmvs * fastest) {
            choice.candidates[i].error = fmt::format(
                "not tried: its host ordering (at least {:.3f} s) cannot pay off within {} SpMVs "
                "of {:.1f} us", least, choice.expected_spmvs, fastest * 1e6);
            continue;
        }
        trials.run(*candidates[i], choice.candidates[i]);
    }
}

/// The candidate with the least expected time (conversion and the expected SpMVs).
void pick_fastest(FormatChoice& choice)
{
    double best = std::numeric_limits<double>::infinity();
    for (FormatCandidate& c : choice.candidates) {
        if (!c.error.empty()) continue;
        c.expected_seconds = c.convert_seconds + choice.expected_spmvs * c.spmv_seconds;
        if (c.expected_seconds < best) {
            best = c.expected_seconds;
            choice.format = c.format;
        }
    }
}

}  // namespace

template <typename V>
FormatChoice choose_format(LinearSystem<V>& system, const CaseSpec& spec,
                           std::optional<ReorderedMatrix<V>>& reordering)
{
    const auto start = clock_type::now();
    FormatChoice choice;
    FormatOptions options = reorder_once(system, spec, reordering, choice);
    CandidateTrials<V> trials(system.matrix, std::move(options));
    // Formats converted on the device first; those that order on the host after the estimate.
    const std::vector<const FormatEntry*> candidates = auto_format_candidates(system.matrix.executor()->backend());
    choice.candidates.resize(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        choice.candidates[i].format = candidates[i]->name;
        if (!candidates[i]->orders_on_host) trials.run(*candidates[i], choice.candidates[i]);
    }
    require_baseline(trials.baseline() != nullptr, candidates, choice);
    choice.expected_iterations =
        expected_iterations_in_order(system, reordering, *trials.baseline()->op, spec, choice.iterations_source);
    choice.expected_spmvs = choice.expected_iterations * spmvs_per_solver_iteration(spec.solver);
    const double least = host_ordering_seconds_per_nnz * static_cast<double>(system.matrix.nnz());
    try_host_ordering(candidates, least, trials.fastest(), trials, choice);
    pick_fastest(choice);
    choice.seconds = seconds_since(start);
    return choice;
}

namespace {

/// Stands for a candidate a rank could not build or did not try (it cannot win).
constexpr double not_a_candidate = 1e300;

/// Each candidate's expected time on the slowest rank (a candidate one rank could not build
/// on none), picked as pick_fastest picks; this rank's own times stay in its table.
void pick_fastest_on_every_rank(FormatChoice& choice, const Communicator& host)
{
    pick_fastest(choice);  // each candidate's expected time here (and this rank's own pick)
    choice.format.clear();
    std::vector<double> mine;
    for (const FormatCandidate& c : choice.candidates) mine.push_back(c.error.empty() ? c.expected_seconds : not_a_candidate);
    const std::vector<double> all = gather_on_every_rank(host, mine);
    double best = not_a_candidate;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        double slowest = 0;
        for (int r = 0; r < host.size(); ++r) slowest = std::max(slowest, all[static_cast<std::size_t>(r) * mine.size() + i]);
        if (slowest < best) {
            best = slowest;
            choice.format = choice.candidates[i].format;
        }
    }
    if (choice.format.empty())
        throw std::runtime_error("format auto: no format could be built on every rank (" + baseline_format().name +
                                 " failed on one)");
}

}  // namespace

template <typename V>
FormatChoice choose_rank_format(const Csr<V>& local, const LinearSystem<V>& owned,
                                const std::function<std::unique_ptr<LinearOperator<V>>()>& distributed_baseline,
                                const CaseSpec& spec, const Communicator& host, const Communicator& device)
{
    const auto start = clock_type::now();
    FormatChoice choice;
    FormatOptions options = spec.format_options;
    limit_candidates(options, static_cast<double>(local.bytes_stored()));
    CandidateTrials<V> trials(local, std::move(options));
    const std::vector<const FormatEntry*> candidates = auto_format_candidates(local.executor()->backend());
    choice.candidates.resize(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        choice.candidates[i].format = candidates[i]->name;
        if (!candidates[i]->orders_on_host) trials.run(*candidates[i], choice.candidates[i]);
    }
    const bool short_run = spec.auto_iterations <= 0 && spec.solver.preconditioner->assumed_iterations <= 0;
    if (short_run) {
        const std::unique_ptr<LinearOperator<V>> op = distributed_baseline();
        choice.expected_iterations = expected_iterations(owned, *op, spec, choice.iterations_source, device);
    } else {  // the case's hint or the multigrid assumption: no run
        require_baseline(trials.baseline() != nullptr, candidates, choice);
        choice.expected_iterations =
            expected_iterations(LinearSystem<V>{}, *trials.baseline()->op, spec, choice.iterations_source);
    }
    choice.expected_spmvs = choice.expected_iterations * spmvs_per_solver_iteration(spec.solver);
    // Every rank tries the host-ordering formats or none (their decision is the slowest rank's).
    const double least = host_ordering_seconds_per_nnz * sum_over_processes(host, static_cast<double>(local.nnz())) /
                         host.size();
    const double fastest = sum_over_processes(host, host.rank() == 0 ? trials.fastest() : 0.0);  // rank 0's
    try_host_ordering(candidates, least, fastest, trials, choice);
    pick_fastest_on_every_rank(choice, host);
    choice.seconds = seconds_since(start);
    return choice;
}

template FormatChoice choose_rank_format(const Csr<float>&, const LinearSystem<float>&,
                                        const std::function<std::unique_ptr<LinearOperator<float>>()>&,
                                        const CaseSpec&, const Communicator&, const Communicator&);
template FormatChoice choose_rank_format(const Csr<double>&, const LinearSystem<double>&,
                                         const std::function<std::unique_ptr<LinearOperator<double>>()>&,
                                         const CaseSpec&, const Communicator&, const Communicator&);
template FormatChoice choose_format(LinearSystem<float>&, const CaseSpec&, std::optional<ReorderedMatrix<float>>&);
template FormatChoice choose_format(LinearSystem<double>&, const CaseSpec&, std::optional<ReorderedMatrix<double>>&);

}  // namespace gpufem
