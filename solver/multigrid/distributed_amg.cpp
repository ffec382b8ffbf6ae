#include "solver/multigrid/distributed_amg.hpp"

#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "linalg/device_runtime.hpp"
#include "linalg/distributed_operator.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/stage_laps.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/chebyshev.hpp"
#include "solver/multigrid/distributed_levels.hpp"
#include "solver/multigrid/level_operators.hpp"

namespace gpufem {

/// One distributed level: its operator (this rank's rows) and smoother, the local transfers to
/// the next coarser level, and the cycle's work vectors (level 0 uses the caller's b and x).
template <typename V>
struct DistributedAmg<V>::Level {
    std::unique_ptr<LinearOperator<V>> owned;  ///< coarse levels: the distributed Galerkin operator
    const LinearOperator<V>* op = nullptr;
    Array<V> dinv;
    std::unique_ptr<PolynomialSmoother<V>> smoother;
    std::unique_ptr<LinearOperator<V>> prolongation, restriction;  ///< null on a coarsest level
    mutable Array<V> b, x, r, d;
    mutable Array<V> below_b, below_x;  ///< this rank's coarse values when the level below is gathered
};

/// The rows the next level is built from.
template <typename V>
struct DistributedAmg<V>::Setup {
    const LinearOperator<V>* op = nullptr;
    const Csr<V>* local = nullptr;
    const WideCsr<V>* wide_local = nullptr;  ///< the finest rows past 2^31 - 1 entries (local unused)
    const Csr<V>* nonlocal = nullptr;
    const HaloPlan* halo = nullptr;
    std::unique_ptr<LinearOperator<V>> next_op;  ///< the coarse operator made by the last level
    /// Stored entries of the owned columns (of whichever block holds them).
    std::size_t local_nnz() const { return wide_local ? wide_local->nnz() : local->nnz(); }
    Csr<V> nonlocal_kept;                        ///< a coarse level's ghost columns
    HaloPlan halo_kept;                          ///< and its halo
};

namespace {

/// f() on every rank; when it throws std::invalid_argument on any rank, every rank throws
/// (the failing ranks their own message), so that none waits for the others.
template <typename F>
void together(const Communicator& host, F&& f)
{
    std::string message;
    try {
        f();
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    if (any_rank(host, !message.empty()))
        throw std::invalid_argument(message.empty() ? "AMG: the setup failed on another rank" : message);
}

/// Throws std::invalid_argument when rows' owned columns have 64-bit offsets and the first
/// coarse level is not a generated grid's (only its lattice product reads such rows).
template <typename V>
void check_wide_rows(const DistributedRows<V>& rows)
{
    if (!rows.wide_local) return;
    if (!rows.spaces || rows.spaces->empty())
        throw std::invalid_argument("AMG across ranks: a rank's rows have more than 2^31 - 1 non-zeros (64-bit row "
                                    "offsets), which aggregation does not read; use pmg on a generated grid or run "
                                    "on more ranks");
    if (rows.spaces->front().lattice.empty())
        throw std::invalid_argument("p-multigrid across ranks: a rank's rows have more than 2^31 - 1 non-zeros (64-bit "
                                    "row offsets), whose Galerkin product is made only down a generated grid at "
                                    "degree 1; run on more ranks");
}

/// This rank's entries of rows (both blocks).
template <typename V>
std::size_t rank_entries(const DistributedRows<V>& rows)
{
    return (rows.wide_local ? rows.wide_local->nnz() : rows.local.nnz()) + rows.nonlocal.nnz();
}

}  // namespace

template <typename V>
DistributedAmg<V>::DistributedAmg(const LinearOperator<V>& a, const DistributedRows<V>& rows,
                                  const AmgOptions& options)
    : exec_(a.executor()), rows_(a.rows()), options_(options), host_(rows.host), device_(rows.device)
{
    if (rows.owned_rows() != a.rows() || rows.nonlocal.rows != a.rows() || rows.nonlocal.cols != rows.halo.ghosts())
        throw std::invalid_argument("distributed AMG: the rows do not match the operator and its halo");
    if (options.coarsening == AmgCoarsening::classical)  // the same on every rank: no rank waits
        throw std::invalid_argument("solver.amg.coarsening: classical runs on one process; under mpirun "
                                    "use aggregation (the default)");
    together(host_, [&] { check_wide_rows(rows); });
    fine_entries_ = rank_entries(rows);
    fine_ghosts_ = rows.halo.ghosts();
    const auto start = std::chrono::steady_clock::now();
    const cuda::AllocationTally before = cuda::allocation_tally();
    build(a, rows);
    setup_shape_ = shape();
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("{} across {} ranks: {} distributed levels ({} to a lower degree or coarser grid), {} gathered onto every rank, "
                 "setup {:.3f} s",
                 space_levels_ > 0 ? "pmg" : "AMG", host_.size(), levels_.size(), space_levels_,
                 gathered_ ? gathered_->levels().size() : 0, setup_seconds_);
    std::string phases;
    for (std::size_t i = 0; i < setup_phase_names.size(); ++i)
        phases += fmt::format("{}{} {:.3f} s", i ? ", " : "", setup_phase_names[i], setup_phases_[i]);
    spdlog::debug("AMG across ranks, setup: {}; device allocations {}", phases, cuda::allocations_since(before));
}

template <typename V>
void DistributedAmg<V>::build(const LinearOperator<V>& a, const DistributedRows<V>& rows)
{
    Setup setup;
    setup.op = &a;
    setup.local = &rows.local;
    setup.wide_local = rows.wide_local;
    setup.nonlocal = &rows.nonlocal;
    setup.halo = &rows.halo;
    bool more = true;  // false once a level was gathered
    if (rows.spaces)
        for (std::size_t s = 0; s < rows.spaces->size() && more; ++s)
            more = add_space_level(setup, (*rows.spaces)[s], s + 1 == rows.spaces->size());
    while (more && add_level(setup)) {
    }
    count_apply_bytes();
    exec_->synchronize();
}

template <typename V>
void DistributedAmg<V>::update(const LinearOperator<V>& a, const DistributedRows<V>& rows)
{
    const std::size_t spaces = rows.spaces ? rows.spaces->size() : 0;
    const bool differs = a.rows() != rows_ || rows.owned_rows() != rows_ || rows.nonlocal.rows != rows_ ||
                         rows.halo.ghosts() != fine_ghosts_ || rows.nonlocal.cols != fine_ghosts_ ||
                         rank_entries(rows) != fine_entries_ || spaces != static_cast<std::size_t>(space_levels_);
    if (any_rank(host_, differs))
        throw std::invalid_argument(fmt::format(
            "{} update across ranks: a rank's rows differ in size or entries from those the hierarchy was set up "
            "for (a new pattern needs a new setup)", name()));
    if (levels_.empty()) throw std::logic_error("AMG across ranks: the hierarchy was lost in a failed update");
    const auto start = std::chrono::steady_clock::now();
    if (initial_setup_seconds_ == 0) initial_setup_seconds_ = setup_seconds_;
    // The old levels go first (their operators and work vectors), so that the new ones never
    // sit beside them; the gathered hierarchy stays for its own update.
    levels_.clear();
    summaries_.clear();
    space_levels_ = 0;
    apply_bytes_ = 0;
    setup_phases_ = {};
    gathered_offsets_.clear();
    updating_ = true;
    try {
        build(a, rows);
    } catch (...) {
        updating_ = false;
        levels_.clear();
        gathered_.reset();
        gathered_op_.reset();
        throw;
    }
    updating_ = false;
    if (const std::vector<index_type> made = shape(); made != setup_shape_) {  // alike on every rank
        levels_.clear();
        throw std::logic_error(fmt::format("AMG across ranks: the update made levels of {} rows where the setup "
                                           "made {}", fmt::join(made, " "), fmt::join(setup_shape_, " ")));
    }
    update_seconds_ = setup_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("{} across {} ranks: hierarchy updated with the new values in {:.3f} s (set up in {:.3f} s)", name(),
                 host_.size(), update_seconds_, initial_setup_seconds_);
}

template <typename V>
DistributedAmg<V>::~DistributedAmg() = default;

template <typename V>
std::vector<index_type> DistributedAmg<V>::shape() const
{
    std::vector<index_type> out;
    for (std::size_t l = 0; l < levels_.size(); ++l)
        out.push_back(levels_[l]->prolongation ? summaries_[l].rows : -summaries_[l].rows);
    out.push_back(gathered_offsets_.empty() ? 0 : gathered_offsets_.back());
    return out;
}

template <typename V>
void DistributedAmg<V>::phase_done(SetupPhase phase, std::chrono::steady_clock::time_point& mark)
{
    exec_->synchronize();
    const auto now = std::chrono::steady_clock::now();
    setup_phases_[static_cast<std::size_t>(phase)] += std::chrono::duration<double>(now - mark).count();
    mark = now;
}

template <typename V>
std::unique_ptr<typename DistributedAmg<V>::Level> DistributedAmg<V>::new_level(Setup& setup, AmgLevelSummary& summary)
{
    auto level = std::make_unique<Level>();
    level->owned = std::move(setup.next_op);
    level->op = level->owned ? level->owned.get() : setup.op;
    const LinearOperator<V>& op = *level->op;
    const auto n = static_cast<std::size_t>(op.rows());
    together(host_, [&] { level->dinv = inverse_diagonal_of(op); });
    level->r = Array<V>(exec_, n);
    level->d = Array<V>(exec_, n);
    if (!levels_.empty()) {
        level->b = Array<V>(exec_, n);
        level->x = Array<V>(exec_, n);
    }
    const double global_rows = sum_over_processes(host_, static_cast<double>(n));
    summary = AmgLevelSummary{static_cast<index_type>(global_rows),
                              static_cast<std::size_t>(sum_over_processes(
                                  host_, static_cast<double>(setup.local_nnz() + setup.nonlocal->nnz()))),
                              0, 0};
    summary.lambda_max = estimate_lambda_max(op, level->dinv, options_.eigen_steps, device_);
    const double upper = chebyshev_margin * summary.lambda_max;
    level->smoother = std::make_unique<PolynomialSmoother<V>>(op, level->dinv, upper, options_.degree,
                                                              options_.smoother == AmgSmoother::jacobi);
    return level;
}

template <typename V>
bool DistributedAmg<V>::add_space_level(Setup& setup, const PartSpace<V>& space, bool last)
{
    auto mark = std::chrono::steady_clock::now();
    AmgLevelSummary summary;
    auto level = new_level(setup, summary);
    phase_done(SetupPhase::smoother, mark);
    StageLaps laps;
    const auto lap = [&](const char* stage) {
        exec_->synchronize();
        laps.lap(stage);
    };
    SpaceTransfer<V> t = setup.wide_local
                             ? space_transfer(*setup.wide_local, *setup.nonlocal, *setup.halo, space, host_, device_)
                             : space_transfer(*setup.local, *setup.nonlocal, *setup.halo, space, host_, device_);
    lap("transfers and Galerkin product");
    level->prolongation = std::make_unique<DistributedOperator<V>>(
        csr_level_operator(std::move(t.prolongation.local)), std::move(t.prolongation.nonlocal), space.halo, device_);
    level->restriction = std::make_unique<DistributedOperator<V>>(
        csr_level_operator(std::move(t.restriction.local)), std::move(t.restriction.nonlocal), *setup.halo, device_);
    lap("P and R as operators");
    summaries_.push_back(summary);
    Level& made = *level;
    levels_.push_back(std::move(level));
    if (aggregates_.size() < levels_.size()) aggregates_.resize(levels_.size());  // none: the space is the coarser level
    ++space_levels_;
    // The spaces stay split down to the last (as one rank's hierarchy has them); the last is
    // gathered when small enough, its levels below made by AMG as on one rank.
    const bool gather = last && space.offsets.back() <= options_.gather_rows;
    if (gather) gather_below(made, t.coarse_local, t.coarse_wide, space.offsets);
    else distribute_below(setup, std::move(t.coarse_local), t.coarse_wide, space.offsets);
    lap(gather ? "gathered below" : "coarse operator");
    spdlog::debug("level below {} rows, then: {}", made.op->rows(), laps.text);
    phase_done(SetupPhase::space_levels, mark);
    return !gather;
}

template <typename V>
const Aggregates* DistributedAmg<V>::level_aggregates(std::size_t l, const Setup& setup, const LinearOperator<V>& op,
                                                     AmgLevelSummary& summary)
{
    if (updating_) {  // the setup's, where it had a coarser level here (every rank alike)
        if (l >= aggregates_.size()) return nullptr;
        summary.mis_rounds = aggregates_[l].rounds;
        return &aggregates_[l];
    }
    Array<std::uint8_t> strong = strength_of_connection(*setup.local, op.diagonal(), options_.strength_threshold);
    Aggregates formed = aggregate(*setup.local, strong, options_.aggregation);
    if (options_.prolongator == AmgProlongator::filtered) formed.strong = std::move(strong);
    summary.mis_rounds = formed.rounds;
    aggregates_.resize(l + 1);
    aggregates_[l] = std::move(formed);
    return &aggregates_[l];
}

template <typename V>
bool DistributedAmg<V>::add_level(Setup& setup)
{
    auto mark = std::chrono::steady_clock::now();
    const std::size_t l = levels_.size();
    AmgLevelSummary summary;
    auto level = new_level(setup, summary);
    const double global_rows = summary.rows;
    const double upper = chebyshev_margin * summary.lambda_max;
    const auto last = [&](const char* why) {
        if (host_.rank() == 0 && !updating_)
            spdlog::warn("AMG across ranks: coarsening stopped at {} rows ({}); the coarsest level is only smoothed",
                         summary.rows, why);
        summaries_.push_back(summary);
        levels_.push_back(std::move(level));
        return false;
    };
    phase_done(SetupPhase::smoother, mark);
    if (static_cast<int>(l) + 2 > options_.max_levels) return last("solver.amg.max_levels");
    const Aggregates* aggregates = level_aggregates(l, setup, *level->op, summary);
    if (!aggregates) return last("the coarsest level of the setup");
    const std::vector<index_type> offsets = rank_offsets(host_, aggregates->count);
    const index_type total = offsets.back();
    if (total == 0 || static_cast<double>(total) > 0.8 * global_rows) {
        aggregates_.resize(l);  // an update stops here too
        return last("too few nodes aggregated");
    }
    const int me = host_.rank();
    phase_done(SetupPhase::aggregation, mark);
    Csr<V> p = rank_prolongator(*setup.local, *setup.nonlocal, level->dinv, 4.0 / (3.0 * upper), *aggregates);
    Csr<V> r = sparse_transpose(p);
    phase_done(SetupPhase::prolongator, mark);
    const Csr<V> ghost_rows = ghost_prolongator_rows(p, offsets[static_cast<std::size_t>(me)], total, *setup.halo,
                                                          host_, device_);
    phase_done(SetupPhase::ghost_rows, mark);
    Csr<V> coarse_local = sparse_product(r, sparse_product(*setup.local, p));
    Csr<V> wide{aggregates->count, total,
                Array<index_type>::from_host(exec_, std::vector<index_type>(static_cast<std::size_t>(aggregates->count) + 1, 0)),
                Array<index_type>(exec_, 0), Array<V>(exec_, 0)};
    if (setup.nonlocal->nnz() > 0) wide = sparse_product(r, sparse_product(*setup.nonlocal, ghost_rows));
    phase_done(SetupPhase::galerkin_product, mark);
    level->prolongation = csr_level_operator(std::move(p));
    level->restriction = csr_level_operator(std::move(r));
    summaries_.push_back(summary);
    Level& made = *level;
    levels_.push_back(std::move(level));
    if (total <= options_.gather_rows) {
        gather_below(made, coarse_local, wide, offsets);
        phase_done(SetupPhase::gathered_levels, mark);
        return false;
    }
    distribute_below(setup, std::move(coarse_local), wide, offsets);
    phase_done(SetupPhase::coarse_halo, mark);
    return true;
}

template <typename V>
void DistributedAmg<V>::gather_below(Level& level, const Csr<V>& local, const Csr<V>& wide,
                                     const std::vector<index_type>& offsets)
{
    gathered_offsets_ = offsets;
    auto op = csr_level_operator(gathered_matrix(local, wide, offsets, host_, device_));
    // The gathered matrix is the same on every rank, so every rank updates or sets up alike.
    together(host_, [&] {
        if (updating_ && gathered_ && updated_gathered(*op)) return;
        gathered_ = std::make_unique<AmgPreconditioner<V>>(*op, *op->stored_csr(), options_);
    });
    gathered_op_ = std::move(op);
    level.below_b = Array<V>(exec_, static_cast<std::size_t>(local.rows));
    level.below_x = Array<V>(exec_, static_cast<std::size_t>(local.rows));
    gathered_b_ = Array<V>(exec_, static_cast<std::size_t>(offsets.back()));
    gathered_x_ = Array<V>(exec_, static_cast<std::size_t>(offsets.back()));
}

template <typename V>
bool DistributedAmg<V>::updated_gathered(const LinearOperator<V>& op)
{
    try {
        gathered_->update(op, *op.stored_csr());
        return true;
    } catch (const std::exception& e) {
        spdlog::debug("AMG across ranks: the gathered levels are set up again ({})", e.what());
        return false;
    }
}

template <typename V>
void DistributedAmg<V>::distribute_below(Setup& setup, Csr<V> local, const Csr<V>& wide,
                                         const std::vector<index_type>& offsets)
{
    StageLaps laps;
    const auto lap = [&](const char* stage) {
        exec_->synchronize();
        laps.lap(stage);
    };
    CoarseGhosts<V> coarse = coarse_ghost_columns(wide, offsets, host_);
    lap("ghost columns and halo");
    setup.nonlocal_kept = coarse.nonlocal.clone_to(exec_);
    setup.halo_kept = coarse.halo;
    auto local_op = csr_level_operator(std::move(local));
    lap("local block");
    auto next = std::make_unique<DistributedOperator<V>>(std::move(local_op), std::move(coarse.nonlocal), coarse.halo,
                                                         device_);
    lap("operator");
    spdlog::debug("coarse operator of {} rows: {}", next->rows(), laps.text);
    setup.local = next->local_block().stored_csr();
    setup.wide_local = nullptr;
    setup.nonlocal = &setup.nonlocal_kept;
    setup.halo = &setup.halo_kept;
    setup.next_op = std::move(next);
}

template <typename V>
void DistributedAmg<V>::count_apply_bytes()
{
    for (const auto& level : levels_) {
        const std::size_t vector = level->dinv.bytes();
        const int spmvs = level->smoother->spmvs(true) + level->smoother->spmvs(false) + 1;
        apply_bytes_ += spmvs * level->op->spmv_min_bytes() + 6 * level->smoother->spmvs(false) * vector;
        if (level->prolongation)
            apply_bytes_ += level->prolongation->spmv_min_bytes() + level->restriction->spmv_min_bytes() + vector;
    }
    if (gathered_) apply_bytes_ += gathered_->apply_bytes() + 2 * gathered_b_.bytes();
}

template <typename V>
void DistributedAmg<V>::cycle(std::size_t l, const Array<V>& b, Array<V>& x) const
{
    const Level& level = *levels_[l];
    const Executor& exec = *exec_;
    const index_type n = level.op->rows();
    level.smoother->smooth(b, x, true, level.r, level.d);
    if (level.prolongation) {
        const bool gathered_below = l + 1 == levels_.size();
        Array<V>& coarse_b = gathered_below ? level.below_b : levels_[l + 1]->b;
        Array<V>& coarse_x = gathered_below ? level.below_x : levels_[l + 1]->x;
        const int visits = options_.cycle == AmgCycle::w ? 2 : 1;
        for (int visit = 0; visit < visits; ++visit) {
            level.op->apply(x, level.r);
            GPUFEM_DISPATCH(exec, amg_residual(exec, n, b.data(), level.r.data()));
            level.restriction->apply(level.r, coarse_b);
            if (gathered_below) gathered_solve(coarse_b, coarse_x);
            else cycle(l + 1, coarse_b, coarse_x);
            level.prolongation->apply(V(1), coarse_x, V(1), x);
        }
    }
    level.smoother->smooth(b, x, false, level.r, level.d);
}

template <typename V>
void DistributedAmg<V>::gather(const Array<V>& mine) const
{
    const Executor& e = *exec_;
    const int me = host_.rank();
    const auto first = static_cast<std::size_t>(gathered_offsets_[static_cast<std::size_t>(me)]);
    const std::size_t bytes = mine.bytes();
    if (bytes > 0) copy_bytes(e, gathered_b_.data() + first, e, mine.data(), bytes);
    std::vector<ExchangeMessage> sends, receives;
    for (int r = 0; r < host_.size(); ++r) {
        if (r == me) continue;
        const auto begin = static_cast<std::size_t>(gathered_offsets_[static_cast<std::size_t>(r)]);
        const auto count = static_cast<std::size_t>(gathered_offsets_[static_cast<std::size_t>(r) + 1]) - begin;
        if (bytes > 0) sends.push_back({r, gathered_b_.data() + first, bytes});
        if (count > 0) receives.push_back({r, gathered_b_.data() + begin, count * sizeof(V)});
    }
    device_.exchange(e, sends, receives);
}

template <typename V>
void DistributedAmg<V>::take_mine(Array<V>& x) const
{
    const Executor& e = *exec_;
    const auto first = static_cast<std::size_t>(gathered_offsets_[static_cast<std::size_t>(host_.rank())]);
    if (!x.empty()) copy_bytes(e, x.data(), e, gathered_x_.data() + first, x.bytes());
}

template <typename V>
void DistributedAmg<V>::gathered_solve(const Array<V>& mine, Array<V>& x) const
{
    gather(mine);
    gathered_->apply(gathered_b_, gathered_x_);
    take_mine(x);
}

template <typename V>
void DistributedAmg<V>::apply(const Array<V>& r, Array<V>& z) const
{
    if (levels_.empty()) throw std::logic_error("AMG across ranks: the hierarchy was lost in a failed update");
    cycle(0, r, z);
}

template <typename V>
void DistributedAmg<V>::apply_coarse(std::size_t l, const Array<V>& y, Array<V>& out) const
{
    if (l + 1 < levels_.size()) {
        levels_[l + 1]->op->apply(y, out);
        return;
    }
    gather(y);
    gathered_op_->apply(gathered_b_, gathered_x_);
    take_mine(out);
}

template <typename V>
double DistributedAmg<V>::galerkin_defect(std::size_t l, unsigned seed) const
{
    if (l >= levels_.size() || !levels_[l]->prolongation)
        throw std::invalid_argument("galerkin_defect: the level has no coarser level");
    const Level& level = *levels_[l];
    const auto coarse = static_cast<std::size_t>(level.restriction->rows());
    std::mt19937 random(seed + 7919u * static_cast<unsigned>(host_.rank()));
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<V> values(coarse);
    for (V& v : values) v = static_cast<V>(uniform(random));
    const Array<V> y = Array<V>::from_host(exec_, values);
    const auto fine = static_cast<std::size_t>(level.op->rows());
    Array<V> py(exec_, fine), apy(exec_, fine), rapy(exec_, coarse), ay(exec_, coarse);
    level.prolongation->apply(y, py);
    level.op->apply(py, apy);
    level.restriction->apply(apy, rapy);
    apply_coarse(l, y, ay);
    const double norm = sum_over_processes(host_, coarse > 0 ? static_cast<double>(dot(ay, ay)) : 0.0);
    axpy(V(-1), rapy, ay);
    const double defect = sum_over_processes(host_, coarse > 0 ? static_cast<double>(dot(ay, ay)) : 0.0);
    return std::sqrt(defect / norm);
}

template <typename V>
nlohmann::json DistributedAmg<V>::report() const
{
    nlohmann::json levels = nlohmann::json::array();
    for (const AmgLevelSummary& s : summaries_)
        levels.push_back({{"rows", s.rows}, {"nnz", s.nnz}, {"lambda_max", s.lambda_max},
                          {"mis_rounds", s.mis_rounds}, {"distributed", true}});
    nlohmann::json phases = nlohmann::json::object();
    for (std::size_t i = 0; i < setup_phase_names.size(); ++i) phases[setup_phase_names[i]] = setup_phases_[i];
    nlohmann::json out = {{"setup_seconds", setup_seconds_},
                          {"setup_phases", phases},
                          {"ranks", host_.size()},
                          {"coarser_space_levels", space_levels_},
                          {"distributed_levels", levels},
                          {"gather_rows", options_.gather_rows},
                          {"aggregates", "within each rank"},
                          {"smoother", std::string(enum_name(amg_smoother_names, options_.smoother))},
                          {"degree", options_.degree},
                          {"cycle", std::string(enum_name(amg_cycle_names, options_.cycle))},
                          {"aggregation", std::string(enum_name(amg_aggregation_names, options_.aggregation))},
                          {"prolongator", std::string(enum_name(amg_prolongator_names, options_.prolongator))},
                          {"strength_threshold", options_.strength_threshold}};
    out["gathered"] = gathered_ ? gathered_->report() : nlohmann::json(nullptr);
    if (update_seconds_ > 0) {  // the keys of an updated hierarchy, as one process reports them
        out["hierarchy"] = "updated";
        out["initial_setup_seconds"] = initial_setup_seconds_;
        out["update_seconds"] = update_seconds_;
    }
    return out;
}

template class DistributedAmg<float>;
template class DistributedAmg<double>;

}  // namespace gpufem
