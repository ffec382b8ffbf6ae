#include "solver/multigrid/amg_preconditioner.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <future>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/interval_timer.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/dense_inverse.hpp"
#include "solver/multigrid/level_operators.hpp"

namespace gpufem {

/// One level: its operator and smoother, the transfers to the next coarser level, and the
/// work vectors of the cycle (b and x are the level's right-hand side and correction; level 0
/// uses the caller's).
template <typename V>
struct AmgPreconditioner<V>::Level {
    std::unique_ptr<LinearOperator<V>> owned;  ///< coarse levels: the Galerkin operator
    const LinearOperator<V>* op = nullptr;     ///< the level's operator (level 0: the system's)
    Array<V> dinv;
    std::unique_ptr<PolynomialSmoother<V>> smoother;
    std::unique_ptr<LinearOperator<V>> prolongation, restriction;  ///< null on the coarsest
    mutable Array<V> b, x, r, d;
};

/// Timers of the cycle's phases, one per level and phase.
template <typename V>
struct AmgPreconditioner<V>::PhaseTimers {
    static constexpr std::array<const char*, 6> names{"pre-smooth", "residual",   "restrict",
                                                      "coarse solve", "prolong", "post-smooth"};
    std::vector<std::array<std::unique_ptr<IntervalTimer>, 6>> timers;
    void start(std::size_t level, int phase) { timers[level][phase]->start(); }
    void stop(std::size_t level, int phase) { timers[level][phase]->stop(); }
};

namespace {

/// m itself when it lives on exec's device, else a copy there.
template <typename V>
Csr<V> taken_to(Csr<V> m, const ExecPtr& exec)
{
    const ExecPtr& on = m.executor();
    if (on->backend() == exec->backend() && on->device_id() == exec->device_id()) return m;
    return m.clone_to(exec);
}

}  // namespace

template <typename V>
AmgPreconditioner<V>::AmgPreconditioner(const LinearOperator<V>& a, const Csr<V>& matrix,
                                        const AmgOptions& options,
                                        const std::vector<Csr<V>>* given_prolongators,
                                        std::vector<CoarseLattice> lattices)
    : exec_(a.executor()), name_(given_prolongators ? "pmg" : "amg"), rows_(a.rows()),
      options_(options), a_(&a), lattices_(std::move(lattices))
{
    if (matrix.rows != a.rows() || matrix.cols != a.cols())
        throw std::invalid_argument("AMG: the matrix does not match the operator");
    set_up(&matrix, given_prolongators, nullptr);
}

template <typename V>
AmgPreconditioner<V>::AmgPreconditioner(const LinearOperator<V>& a, const AmgOptions& options,
                                        const std::vector<Csr<V>>& prolongators,
                                        std::vector<Csr<V>> coarse_operators, std::vector<CoarseLattice> lattices,
                                        std::string origin, std::optional<TransferOperators<V>> first,
                                        std::unique_ptr<LinearOperator<V>> first_operator)
    : exec_(a.executor()), name_("pmg"), given_origin_(std::move(origin)), first_transfer_(std::move(first)),
      first_operator_(std::move(first_operator)), rows_(a.rows()), options_(options), a_(&a),
      lattices_(std::move(lattices))
{
    given_operators_ = true;
    const std::size_t offset = first_transfer_ ? 1 : 0;
    const auto columns = [&](std::size_t l) {
        return l < offset ? first_transfer_->prolongation->cols() : prolongators[l - offset].cols;
    };
    if (coarse_operators.empty() || coarse_operators.size() > prolongators.size() + offset)
        throw std::invalid_argument("pmg: at least the first and at most one coarse operator per given "
                                    "interpolation is needed");
    if (first_transfer_ && (!first_transfer_->prolongation || !first_transfer_->restriction ||
                            first_transfer_->prolongation->rows() != a.rows() ||
                            first_transfer_->restriction->rows() != first_transfer_->prolongation->cols() ||
                            first_transfer_->restriction->cols() != a.rows()))
        throw std::invalid_argument("pmg: the given first transfer does not match the operator");
    if (first_operator_ && (!first_transfer_ || prolongators.empty() || coarse_operators.size() < 2 ||
                            coarse_operators[0].rows != 0 ||
                            first_operator_->rows() != columns(0) || first_operator_->cols() != columns(0)))
        throw std::invalid_argument("pmg: a given first coarse operator needs the first transfer's columns, a "
                                    "prolongation below it, the next level's operator and no matrix of its own");
    for (std::size_t l = first_operator_ ? 1 : 0; l < coarse_operators.size(); ++l)
        if (coarse_operators[l].rows != columns(l) || coarse_operators[l].cols != columns(l))
            throw std::invalid_argument("pmg: a coarse operator does not match its interpolation's columns");
    set_up(nullptr, &prolongators, &coarse_operators);
}

template <typename V>
AmgPreconditioner<V>::AmgPreconditioner(const LinearOperator<V>& a, const Csr<double>& matrix,
                                        const AmgOptions& options, const std::vector<Csr<V>>& given_prolongators,
                                        std::vector<CoarseLattice> lattices)
    requires std::is_same_v<V, float>
    : exec_(a.executor()), name_("pmg"), from_double_(true), fine_in_double_(&matrix), rows_(a.rows()),
      options_(options), a_(&a), lattices_(std::move(lattices))
{
    if (matrix.rows != a.rows() || matrix.cols != a.cols())
        throw std::invalid_argument("AMG: the matrix does not match the operator");
    if (given_prolongators.empty())
        throw std::invalid_argument("pmg from a double matrix: at least one interpolation is needed");
    set_up(nullptr, &given_prolongators, nullptr);
    fine_in_double_ = nullptr;
}

template <typename V>
index_type AmgPreconditioner<V>::coarsen(const Csr<V>& csr, const LinearOperator<V>& op, Coarsening& out,
                                         int& rounds) const
{
    if (options_.coarsening == AmgCoarsening::classical) {
        out.strong = classical_strength(csr, options_.classical_threshold);
        out.splitting = pmis_splitting(csr, out.strong);
        rounds = out.splitting.rounds;
        return out.splitting.count;
    }
    Array<std::uint8_t> strong = strength_of_connection(csr, op.diagonal(), options_.strength_threshold);
    out.aggregates = aggregate(csr, strong, options_.aggregation);
    if (options_.prolongator == AmgProlongator::filtered) out.aggregates.strong = std::move(strong);
    rounds = out.aggregates.rounds;
    return out.aggregates.count;
}

template <typename V>
Csr<V> AmgPreconditioner<V>::prolongator_of(const Csr<V>& csr, const Array<V>& dinv, double upper,
                                            Coarsening& c) const
{
    if (options_.coarsening == AmgCoarsening::classical) {
        // An update keeps the splitting, not the strength: made again from the new values.
        const Array<std::uint8_t> strong =
            c.strong.empty() ? classical_strength(csr, options_.classical_threshold) : std::move(c.strong);
        c.strong = {};
        return extended_interpolation(csr, strong, c.splitting, options_.interpolation_entries);
    }
    return smoothed_prolongator(csr, dinv, 4.0 / (3.0 * upper), c.aggregates);
}

template <typename V>
void AmgPreconditioner<V>::set_up(const Csr<V>* matrix, const std::vector<Csr<V>>* given_prolongators,
                                  std::vector<Csr<V>>* given_operators)
{
    const LinearOperator<V>& a = *a_;
    const AmgOptions& options = options_;
    // A given first transfer (operators) comes before the given matrices.
    const std::size_t offset = first_transfer_ ? 1 : 0;
    const std::size_t given = (given_prolongators ? given_prolongators->size() : 0) + offset;
    for (std::size_t l = offset; l < given; ++l) {
        const Csr<V>& p = (*given_prolongators)[l - offset];
        const index_type finer = l == 0              ? a.rows()
                                 : l == offset      ? first_transfer_->prolongation->cols()
                                                    : (*given_prolongators)[l - offset - 1].cols;
        if (p.rows != finer || p.cols <= 0 || p.cols >= p.rows)
            throw std::invalid_argument("pmg: the lower-degree interpolations do not chain from "
                                        "the operator's rows");
    }
    const auto start = std::chrono::steady_clock::now();
    // Each step timed (synchronised) into setup_phases_, summed over the levels.
    auto mark = std::chrono::steady_clock::now();
    const auto phase_done = [this, &mark](std::size_t phase) {
        exec_->synchronize();
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - mark).count();
        setup_phases_[phase] += seconds;
        spdlog::debug("{} setup, level {}: {} {:.3f} ms", name_, levels_.size(), setup_phase_names[phase],
                      1e3 * seconds);
        mark = now;
    };
    const Csr<V>* csr = matrix;  // the current level's entries (coarse levels: their operator's;
                                 // null on level 0 when the coarse operators are given)
    std::unique_ptr<LinearOperator<V>> coarse_op;
    // A given transfer needs no eigenvalue: those levels' estimates wait until every level is
    // made (their syncs would otherwise wait for them), then run on the device while the host
    // inverts the coarsest level.
    std::vector<std::size_t> deferred;
    std::optional<DenseInverseInput> coarsest_entries;
    for (;;) {
        auto level = std::make_unique<Level>();
        level->owned = std::move(coarse_op);
        level->op = level->owned ? level->owned.get() : &a;
        const LinearOperator<V>& op = *level->op;
        const index_type n = op.rows();
        level->dinv = inverse_diagonal_of(op);
        level->r = Array<V>(exec_, static_cast<std::size_t>(n));
        level->d = Array<V>(exec_, static_cast<std::size_t>(n));
        if (!levels_.empty()) {
            level->b = Array<V>(exec_, static_cast<std::size_t>(n));
            level->x = Array<V>(exec_, static_cast<std::size_t>(n));
        }
        const std::size_t nnz = csr ? csr->nnz() : levels_.empty() && fine_in_double_ ? fine_in_double_->nnz() : 0;
        AmgLevelSummary summary{n, nnz, 0, 0};
        // p-multigrid: the first levels go down in degree through the given interpolations.
        const bool geometric = levels_.size() < given;
        bool coarsest = !geometric && (n <= options.coarse_size ||
                                       static_cast<int>(levels_.size()) + 1 >= options.max_levels);
        Coarsening coarsening;
        if (!coarsest && !geometric) {
            const index_type count = coarsen(*csr, op, coarsening, summary.mis_rounds);
            // No coarse point, or too few nodes merged to be worth a level: stop here.
            coarsest = count == 0 || static_cast<double>(count) > 0.8 * static_cast<double>(n);
        }
        phase_done(0);
        if (coarsest && n <= dense_inverse_limit) {
            coarsest_entries = dense_inverse_input(*csr);
            summaries_.push_back(summary);
            levels_.push_back(std::move(level));
            coarsenings_.emplace_back();
            phase_done(5);
            break;
        }
        if (geometric)
            deferred.push_back(levels_.size());
        else
            summary.lambda_max =
                set_up_smoother(*level, LambdaMaxEstimate<V>(op, level->dinv, options_.eigen_steps).lambda_max());
        summaries_.push_back(summary);
        phase_done(1);
        if (coarsest) {  // too large for a dense solve: smoothed only
            spdlog::warn("AMG: coarsening stopped at {} rows, too many for a direct solve; the "
                         "coarsest level is only smoothed (raise solver.amg.max_levels or "
                         "change solver.amg.strength_threshold)",
                         n);
            levels_.push_back(std::move(level));
            coarsenings_.emplace_back();
            break;
        }
        if (geometric) ++given_levels_;
        if (levels_.size() < offset) {  // the given first transfer, its coarse operator given
            level->prolongation = std::move(first_transfer_->prolongation);
            level->restriction = std::move(first_transfer_->restriction);
            first_transfer_format_ = level->prolongation->format();
            first_transfer_.reset();
            phase_done(2);
            if (first_operator_) {  // made without a stored matrix: the next level's operator is given
                first_operator_format_ = first_operator_->format();
                coarse_op = std::move(first_operator_);
            } else {
                coarse_op = csr_level_operator(taken_to(std::move((*given_operators)[0]), exec_));
            }
            phase_done(3);
            levels_.push_back(std::move(level));
            coarsenings_.emplace_back();
            csr = coarse_op->stored_csr();
            phase_done(4);
            continue;
        }
        Csr<V> p = geometric ? (*given_prolongators)[levels_.size() - offset].clone_to(exec_)
                             : prolongator_of(*csr, level->dinv, chebyshev_margin * summary.lambda_max, coarsening);
        Csr<V> r = sparse_transpose(p);
        phase_done(2);
        Csr<V> next = given_operators && geometric && levels_.size() < given_operators->size()
                          ? taken_to(std::move((*given_operators)[levels_.size()]), exec_)
                          : csr ? galerkin(levels_.size(), r, *csr, p)
                                : galerkin_from_double(r, p);
        phase_done(3);
        level->prolongation = csr_level_operator(std::move(p));
        level->restriction = csr_level_operator(std::move(r));
        levels_.push_back(std::move(level));
        coarsenings_.push_back(std::move(coarsening));  // empty for a given prolongator
        coarse_op = csr_level_operator(std::move(next));
        csr = coarse_op->stored_csr();  // the operator keeps the matrix: no second copy
        phase_done(4);
    }
    finish_levels(deferred, coarsest_entries, phase_done);
    apply_bytes_ = cycle_bytes();
    exec_->synchronize();
    setup_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename V>
template <typename PhaseDone>
void AmgPreconditioner<V>::finish_levels(const std::vector<std::size_t>& deferred,
                                         const std::optional<DenseInverseInput>& coarsest_entries,
                                         const PhaseDone& phase_done)
{
    using clock = std::chrono::steady_clock;
    const auto seconds_since = [](clock::time_point from) {
        return std::chrono::duration<double>(clock::now() - from).count();
    };
    // The coarsest level's inverse on a thread of its own while this one queues the
    // estimates' kernels: both are host work, and the device runs the estimates meanwhile
    // (its row operations on several host threads; on the CPU backend on one, the cores being
    // the estimates').
    double inverse_seconds = 0;
    std::future<std::vector<double>> inverting;
    const bool on_device = exec_->is_cuda();
    if (coarsest_entries)
        inverting = std::async(std::launch::async, [&entries = *coarsest_entries, &inverse_seconds, seconds_since,
                                                    on_device] {
            const auto from = clock::now();
            std::vector<double> inverse = on_device ? dense_inverse(entries) : dense_inverse(entries, 1);
            inverse_seconds = seconds_since(from);
            return inverse;
        });
    const auto queued_from = clock::now();
    std::vector<LambdaMaxEstimate<V>> estimates;  // queued now, read after the inverse
    for (const std::size_t l : deferred)
        estimates.emplace_back(*levels_[l]->op, levels_[l]->dinv, options_.eigen_steps);
    const double queued = seconds_since(queued_from);
    const auto joined_from = clock::now();
    // The coarse_inverse step is what the inverse kept this thread waiting after the queue;
    // the rest of the wait for the device's estimates is the eigenvalue_estimate step.
    std::vector<double> inverse = inverting.valid() ? inverting.get() : std::vector<double>{};
    const double inverse_wait = seconds_since(joined_from);
    spdlog::debug("{} setup: {} deferred estimates queued in {:.3f} ms; the host's inverse of {} rows {:.3f} ms "
                  "beside it, {:.3f} ms waited for",
                  name_, deferred.size(), 1e3 * queued, coarsest_entries ? coarsest_entries->rows : 0,
                  1e3 * inverse_seconds, 1e3 * inverse_wait);
    if (coarsest_entries) coarse_inverse_ = upload_as<V>(exec_, inverse);
    for (std::size_t k = 0; k < deferred.size(); ++k)
        summaries_[deferred[k]].lambda_max = set_up_smoother(*levels_[deferred[k]], estimates[k].lambda_max(), true);
    phase_done(1);
    setup_phases_[1] -= inverse_wait;
    setup_phases_[5] += inverse_wait;
}

template <typename V>
std::size_t AmgPreconditioner<V>::cycle_bytes() const
{
    std::size_t bytes = 0;
    for (const auto& level : levels_) {
        const std::size_t vector = level->dinv.bytes();
        if (level->smoother) {
            const int spmvs = level->smoother->spmvs(true) + level->smoother->spmvs(false) + 1;
            bytes += spmvs * level->op->spmv_min_bytes() + 6 * level->smoother->spmvs(false) * vector;
        } else {
            bytes += coarse_inverse_.bytes() + 2 * vector;
        }
        if (level->prolongation)
            bytes += level->prolongation->spmv_min_bytes() + level->restriction->spmv_min_bytes() + vector;
    }
    return bytes;
}

template <typename V>
double AmgPreconditioner<V>::set_up_smoother(Level& level, double lambda, bool given) const
{
    const double range = options_.coarsening == AmgCoarsening::classical && !given ? classical_chebyshev_range
                                                                                   : chebyshev_range;
    level.smoother = std::make_unique<PolynomialSmoother<V>>(*level.op, level.dinv, chebyshev_margin * lambda,
                                                             options_.degree, options_.smoother == AmgSmoother::jacobi,
                                                             range);
    return lambda;
}

template <typename V>
Csr<V> AmgPreconditioner<V>::galerkin_from_double(const Csr<V>& r, const Csr<V>& p) const
{
    if (!fine_in_double_) throw std::logic_error("AMG: a level without its matrix has no Galerkin product");
    if constexpr (std::is_same_v<V, float>) {
        static const CoarseLattice none;
        return lattice_galerkin(r, *fine_in_double_, p, lattices_.empty() ? none : lattices_.front());
    } else {
        throw std::logic_error("AMG: a level-0 matrix in double is taken by float hierarchies only");
    }
}

template <typename V>
AmgPreconditioner<V>::~AmgPreconditioner() = default;

template <typename V>
void AmgPreconditioner<V>::update(const LinearOperator<V>& a, const Csr<V>& matrix)
{
    if (given_operators_ || from_double_)
        throw std::logic_error("pmg with element-wise coarse operators or from a double matrix keeps no "
                               "level-0 matrix to update from: set it up again");
    if (a.rows() != rows_ || matrix.rows != rows_ || matrix.nnz() != summaries_.front().nnz)
        throw std::invalid_argument(fmt::format(
            "AMG update: the matrix has {} rows and {} non-zeros, the hierarchy was built for {} and {} "
            "(a new pattern needs a new setup)", matrix.rows, matrix.nnz(), rows_, summaries_.front().nnz));
    const auto start = std::chrono::steady_clock::now();
    try {
        update_levels(a, matrix);
        apply_bytes_ = cycle_bytes();
    } catch (...) {
        // Half-updated levels would point at operators the update replaced: the hierarchy is
        // gone, and apply() says so (a new setup is needed).
        levels_.clear();
        throw;
    }
    exec_->synchronize();
    update_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename V>
void AmgPreconditioner<V>::update_levels(const LinearOperator<V>& a, const Csr<V>& matrix)
{
    const Csr<V>* csr = &matrix;
    std::unique_ptr<LinearOperator<V>> coarse_op;
    std::vector<std::size_t> deferred;
    std::optional<DenseInverseInput> coarsest_entries;
    for (std::size_t l = 0; l < levels_.size(); ++l) {
        Level& level = *levels_[l];
        if (l > 0) {
            level.owned = std::move(coarse_op);
            level.op = level.owned.get();
        } else {
            level.op = &a;
        }
        const LinearOperator<V>& op = *level.op;
        level.dinv = inverse_diagonal_of(op);
        if (!level.smoother) {  // the coarsest level's direct solve
            coarsest_entries = dense_inverse_input(*csr);
            break;
        }
        const bool geometric = static_cast<int>(l) < given_levels_;
        if (geometric)  // as in set_up: estimated after the last level
            deferred.push_back(l);
        else
            summaries_[l].lambda_max =
                set_up_smoother(level, LambdaMaxEstimate<V>(op, level.dinv, options_.eigen_steps).lambda_max());
        if (!level.prolongation) break;  // a coarsest level that is only smoothed
        if (!geometric) {  // AMG: P from the kept coarse space, new values
            const double upper = chebyshev_margin * summaries_[l].lambda_max;
            Csr<V> p = prolongator_of(*csr, level.dinv, upper, coarsenings_[l]);
            Csr<V> r = sparse_transpose(p);
            level.prolongation = csr_level_operator(std::move(p));
            level.restriction = csr_level_operator(std::move(r));
        }
        const Csr<V>& p = *level.prolongation->stored_csr();
        const Csr<V>& r = *level.restriction->stored_csr();
        coarse_op = csr_level_operator(galerkin(l, r, *csr, p));
        csr = coarse_op->stored_csr();
        summaries_[l + 1].nnz = csr->nnz();  // classical P's pattern follows the values
    }
    finish_levels(deferred, coarsest_entries, [](std::size_t) {});
}

template <typename V>
Csr<V> AmgPreconditioner<V>::galerkin(std::size_t l, const Csr<V>& r, const Csr<V>& a, const Csr<V>& p) const
{
    static const CoarseLattice none;
    return lattice_galerkin(r, a, p, l < lattices_.size() && static_cast<int>(l) < given_levels_ ? lattices_[l] : none);
}

template <typename V>
void AmgPreconditioner<V>::cycle(std::size_t l, const Array<V>& b, Array<V>& x) const
{
    const Level& level = *levels_[l];
    const Executor& exec = *exec_;
    const index_type n = level.op->rows();
    const auto mark = [this, l](int phase, bool start) {
        if (timers_) start ? timers_->start(l, phase) : timers_->stop(l, phase);
    };
    if (!level.smoother) {  // the direct solve
        mark(3, true);
        GPUFEM_DISPATCH(exec, amg_dense_matvec(exec, n, coarse_inverse_.data(), b.data(), x.data()));
        mark(3, false);
        return;
    }
    mark(0, true);
    level.smoother->smooth(b, x, true, level.r, level.d);
    mark(0, false);
    if (!level.prolongation) {  // a coarsest level that is only smoothed
        mark(5, true);
        level.smoother->smooth(b, x, false, level.r, level.d);
        mark(5, false);
        return;
    }
    // The coarse correction: once (V-cycle), or twice in a row (W-cycle; the same
    // A-symmetric correction applied twice, so the cycle stays symmetric for CG).
    const int visits = options_.cycle == AmgCycle::w && l + 2 < levels_.size() ? 2 : 1;
    for (int visit = 0; visit < visits; ++visit) {
        mark(1, true);
        level.op->apply(x, level.r);
        GPUFEM_DISPATCH(exec, amg_residual(exec, n, b.data(), level.r.data()));
        mark(1, false);
        const Level& next = *levels_[l + 1];
        mark(2, true);
        level.restriction->apply(level.r, next.b);
        mark(2, false);
        cycle(l + 1, next.b, next.x);
        mark(4, true);
        level.prolongation->apply(V(1), next.x, V(1), x);
        mark(4, false);
    }
    mark(5, true);
    level.smoother->smooth(b, x, false, level.r, level.d);
    mark(5, false);
}

template <typename V>
void AmgPreconditioner<V>::apply(const Array<V>& r, Array<V>& z) const
{
    if (levels_.empty()) throw std::logic_error("AMG: the hierarchy was lost in a failed update; set it up again");
    cycle(0, r, z);
}

template <typename V>
std::vector<AmgCyclePhase> AmgPreconditioner<V>::time_cycle(const Array<V>& r, Array<V>& z,
                                                            int repeats) const
{
    if (levels_.empty()) throw std::logic_error("AMG: the hierarchy was lost in a failed update; set it up again");
    PhaseTimers timers;
    for (std::size_t l = 0; l < levels_.size(); ++l) {
        timers.timers.emplace_back();
        for (auto& timer : timers.timers.back()) timer = make_interval_timer(exec_);
    }
    timers_ = &timers;
    try {
        for (int k = 0; k < repeats; ++k) cycle(0, r, z);
    } catch (...) {
        timers_ = nullptr;
        throw;
    }
    timers_ = nullptr;
    std::vector<AmgCyclePhase> out;
    for (std::size_t l = 0; l < levels_.size(); ++l)
        for (int phase = 0; phase < 6; ++phase) {
            std::vector<double> seconds = timers.timers[l][phase]->seconds();
            if (seconds.empty()) continue;
            std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
            out.push_back({static_cast<int>(l), PhaseTimers::names[phase], seconds[seconds.size() / 2]});
        }
    return out;
}

template <typename V>
bool AmgPreconditioner<V>::graph_capturable() const
{
    for (const auto& level : levels_) {
        if (!level->op->graph_capturable()) return false;
        if (level->prolongation && (!level->prolongation->graph_capturable() ||
                                    !level->restriction->graph_capturable()))
            return false;
    }
    return true;
}

template <typename V>
double AmgPreconditioner<V>::operator_complexity() const
{
    double total = 0;
    for (const auto& s : summaries_) total += static_cast<double>(s.nnz);
    return summaries_.empty() || summaries_[0].nnz == 0 ? 1.0
                                                        : total / static_cast<double>(summaries_[0].nnz);
}

template <typename V>
nlohmann::json AmgPreconditioner<V>::report() const
{
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& s : summaries_) {
        levels.push_back({{"rows", s.rows}, {"nnz", s.nnz}, {"lambda_max", s.lambda_max},
                          {"mis_rounds", s.mis_rounds}});
        if (given_operators_ && levels.size() == 1) levels.back()["nnz"] = nullptr;  // not assembled
        if (!first_operator_format_.empty() && levels.size() == 2) {
            levels.back()["nnz"] = nullptr;
            levels.back()["format"] = first_operator_format_;
        }
    }
    nlohmann::json phases = nlohmann::json::object();
    for (std::size_t i = 0; i < setup_phase_names.size(); ++i)
        phases[setup_phase_names[i]] = setup_phases_[i];
    nlohmann::json out = {{"setup_seconds", setup_seconds_},
            {"degree_levels", given_levels_},  // transfers between degrees of one mesh (pmg)
            {"setup_phases", phases},
            {"levels", levels},
            {"operator_complexity", given_operators_ ? nlohmann::json(nullptr) : nlohmann::json(operator_complexity())},
            {"coarse_operators", given_levels_ == 0 ? "galerkin" : given_operators_ ? given_origin_ : "galerkin (R A P)"},
            {"first_transfer", first_transfer_format_},
            {"smoother", std::string(enum_name(amg_smoother_names, options_.smoother))},
            {"degree", options_.degree},
            {"cycle", std::string(enum_name(amg_cycle_names, options_.cycle))},
            {"aggregation", std::string(enum_name(amg_aggregation_names, options_.aggregation))},
            {"prolongator", std::string(enum_name(amg_prolongator_names, options_.prolongator))},
            {"strength_threshold", options_.strength_threshold},
            {"coarse_size", options_.coarse_size},
            {"coarse_solve", coarse_inverse_.empty() ? "smoothing" : "dense inverse"}};
    if (update_seconds_ > 0) out["update_seconds"] = update_seconds_;
    return out;
}

template class AmgPreconditioner<float>;
template class AmgPreconditioner<double>;

}  // namespace gpufem
