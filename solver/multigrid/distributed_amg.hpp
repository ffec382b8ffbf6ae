#pragma once
// Smoothed-aggregation AMG on a matrix whose rows are split among ranks (gpufem run under
// mpirun). Each rank aggregates its own rows (aggregates do not cross ranks) and smooths its
// prolongator with its owned block, the couplings to other ranks lumped onto the diagonal, so
// P and R = P^T are local: restriction and prolongation send nothing. The Galerkin product
// R A P is the ranks' together: each rank's rows of A P need the rows of P its ghost columns
// name, exchanged once at setup. The coarse level is again a distributed operator (owned block
// plus ghost columns, with its own halo), smoothed by Chebyshev on its diagonal like the fine
// one, down to the first level with at most solver.amg.gather_rows rows in all: that one is
// gathered onto every rank, which sets it up and cycles it as one process would (hypre's
// redundant coarse solve), so the coarse levels, where messages would cost more than the
// arithmetic, send nothing but one all-gather of their right-hand side per cycle. Given
// p-multigrid's coarser spaces (DistributedRows::spaces), those are the first coarse levels:
// their transfers reach other ranks' unknowns through halos (space_transfer in
// solver/multigrid/distributed_levels.hpp), and aggregation goes on below the last.
// A hierarchy keeps each level's aggregates, so that the next point of a coefficient sweep
// (the same rows' pattern, new values) updates it without aggregating again (update).
#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "linalg/communicator.hpp"
#include "linalg/csr.hpp"
#include "linalg/halo.hpp"
#include "solver/krylov/preconditioner.hpp"
#include "solver/multigrid/amg_options.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/part_space.hpp"

namespace gpufem {

template <typename V>
struct DistributedRows;

/// A hierarchy across ranks that the next point of a coefficient sweep (the same parts and
/// pattern, new values) updates instead of setting it up again.
template <typename V>
class UpdatableAcrossRanks {
public:
    virtual ~UpdatableAcrossRanks() = default;
    /// Takes rows' new values (a: the distributed operator they belong to). Collective; throws
    /// std::invalid_argument or std::logic_error on every rank when it cannot, and must then be
    /// set up again.
    virtual void update(const LinearOperator<V>& a, const DistributedRows<V>& rows) = 0;
};

/// A rank's rows of a distributed matrix as a multigrid setup reads them, in the operator's
/// numbering.
template <typename V>
struct DistributedRows {
    const Csr<V>& local;           ///< owned rows x owned columns (empty when wide_local holds them)
    const Csr<V>& nonlocal;        ///< owned rows x ghost columns
    const HaloPlan& halo;          ///< how the ghosts arrive from their owners
    const Communicator& host;      ///< the ranks, for the setup's host data
    const Communicator& device;    ///< the ranks, for the cycle's data (the operator's communicator)
    /// p-multigrid: the part's coarser spaces (lower degrees, coarser grids), finest first, as
    /// the first coarse levels (their Galerkin operators R A P), aggregation below them; null
    /// or empty: AMG alone.
    const std::vector<PartSpace<V>>* spaces = nullptr;
    /// The owned columns with 64-bit row offsets, instead of local, when the rank's rows pass
    /// 2^31 - 1 entries (or the case asks for such offsets): only p-multigrid's first grid
    /// level reads them (the Galerkin product on a generated grid's lattice); aggregation
    /// refuses them.
    const WideCsr<V>* wide_local = nullptr;

    /// Owned rows (of whichever block holds the owned columns).
    index_type owned_rows() const { return wide_local ? wide_local->rows : local.rows; }
};

/// Smoothed-aggregation AMG across ranks, one V-cycle (or W-cycle) per apply; symmetric, so CG
/// stays valid. Every call is collective: all ranks set it up and apply it together.
template <typename V>
class DistributedAmg final : public Preconditioner<V>, public UpdatableAcrossRanks<V> {
public:
    /// The hierarchy of a (this rank's owned rows of the distributed operator, kept by
    /// reference) whose entries rows holds. Throws std::invalid_argument on a zero or
    /// non-finite diagonal (on every rank: the ranks fail together).
    DistributedAmg(const LinearOperator<V>& a, const DistributedRows<V>& rows, const AmgOptions& options);
    ~DistributedAmg() override;

    const ExecPtr& executor() const override { return exec_; }
    index_type size() const override { return rows_; }
    std::string name() const override { return space_levels_ > 0 ? "pmg" : "amg"; }
    /// One cycle from a zero guess.
    void apply(const Array<V>& r, Array<V>& z) const override;
    std::size_t apply_bytes() const override { return apply_bytes_; }
    /// Not captured: the gathered level's exchange and the coarse halos are not stream-ordered
    /// on every communicator.
    bool graph_capturable() const override { return false; }
    nlohmann::json report() const override;

    /// Takes the new values of rows with the pattern and numbering of the setup's (the next
    /// point of a coefficient sweep on the same parts): every level is made again from them
    /// but from the aggregates the setup formed (no strength or aggregation pass), and the
    /// gathered levels are updated as one process updates its hierarchy (or set up again where
    /// their pattern changed). rows.spaces must be the setup's coarser spaces. Collective.
    /// Throws std::invalid_argument on every rank when any rank's rows differ in size or
    /// entries from the setup's, or when the new values fail (a zero diagonal): the hierarchy
    /// is then lost and must be set up again.
    void update(const LinearOperator<V>& a, const DistributedRows<V>& rows) override;
    /// Wall time of the last update (0: none).
    double update_seconds() const override { return update_seconds_; }

    /// The levels, finest first: rows and stored entries over all ranks (the gathered levels as
    /// each rank holds them).
    const std::vector<AmgLevelSummary>& levels() const { return summaries_; }
    /// How many levels are split among the ranks (the rest are gathered).
    int distributed_levels() const { return static_cast<int>(levels_.size()); }
    /// Wall time of the setup (synchronised).
    double setup_seconds() const { return setup_seconds_; }
    /// The Galerkin defect of level l's coarse operator A_c (l < distributed_levels(), a level
    /// with a coarser one): ||A_c y - R A P y|| / ||A_c y|| over all ranks for a random coarse
    /// vector y drawn from seed. Collective; for tests.
    double galerkin_defect(std::size_t l, unsigned seed) const;

private:
    struct Level;
    struct Setup;
    void cycle(std::size_t l, const Array<V>& b, Array<V>& x) const;
    /// mine (this rank's values of the gathered level) and every other rank's into gathered_b_.
    void gather(const Array<V>& mine) const;
    /// This rank's values of gathered_x_ into x.
    void take_mine(Array<V>& x) const;
    /// The gathered levels' correction: mine gathered, cycled on every rank, and this rank's
    /// part of the result in x.
    void gathered_solve(const Array<V>& mine, Array<V>& x) const;
    /// The coarse operator below level l applied to this rank's coarse values.
    void apply_coarse(std::size_t l, const Array<V>& y, Array<V>& out) const;
    /// The levels from rows, down to the coarsest (the constructor's and update's work).
    void build(const LinearOperator<V>& a, const DistributedRows<V>& rows);
    /// The aggregates of level l (setup: formed now from setup's rows and kept; update: the
    /// kept ones); null when the level is the coarsest (update: as the setup found it).
    const Aggregates* level_aggregates(std::size_t l, const Setup& setup, const LinearOperator<V>& op,
                                       AmgLevelSummary& summary);
    /// A level on setup's current operator (its smoother, summary and work vectors), not yet
    /// joined to a coarser one.
    std::unique_ptr<Level> new_level(Setup& setup, AmgLevelSummary& summary);
    /// Builds one level from setup's current rows; false when it is the coarsest.
    bool add_level(Setup& setup);
    /// Builds one level whose coarser level is the given space (p-multigrid; last: the last
    /// space); false when that one was gathered (it is the last distributed level then).
    bool add_space_level(Setup& setup, const PartSpace<V>& space, bool last);
    /// The coarse level below level (this rank's rows: local, its own columns, and wide, the
    /// other ranks') gathered onto every rank and set up there.
    void gather_below(Level& level, const Csr<V>& local, const Csr<V>& wide, const std::vector<index_type>& offsets);
    /// The kept gathered hierarchy updated with op's values; false (and it is set up again)
    /// where it cannot take them (another pattern).
    bool updated_gathered(const LinearOperator<V>& op);
    /// The coarse level as a distributed operator, its rows the next level's setup reads.
    void distribute_below(Setup& setup, Csr<V> local, const Csr<V>& wide, const std::vector<index_type>& offsets);
    void count_apply_bytes();
    /// Each distributed level's rows over all ranks (negative: no coarser level), then the
    /// gathered level's rows (0: none).
    std::vector<index_type> shape() const;

    ExecPtr exec_;
    index_type rows_ = 0;
    AmgOptions options_;
    const Communicator& host_;
    const Communicator& device_;
    std::vector<std::unique_ptr<Level>> levels_;
    std::vector<AmgLevelSummary> summaries_;
    std::unique_ptr<LinearOperator<V>> gathered_op_;         ///< the first gathered level (every rank)
    std::unique_ptr<AmgPreconditioner<V>> gathered_;         ///< its hierarchy
    std::vector<index_type> gathered_offsets_;               ///< each rank's first row of it
    mutable Array<V> gathered_b_, gathered_x_;
    std::size_t apply_bytes_ = 0;
    double setup_seconds_ = 0;
    int space_levels_ = 0;  ///< levels whose coarser level is a given space
    /// Per level, the aggregates forming its coarser level (count 0: a given space's level or
    /// the coarsest), what update keeps.
    std::vector<Aggregates> aggregates_;
    bool updating_ = false;              ///< build() runs for update
    std::size_t fine_entries_ = 0;       ///< this rank's fine entries (both blocks) at setup
    index_type fine_ghosts_ = 0;         ///< and its ghosts
    /// The setup's levels as shape() gives them (an update makes the same).
    std::vector<index_type> setup_shape_;
    double update_seconds_ = 0;
    double initial_setup_seconds_ = 0;   ///< the setup's time, once updated
    /// The setup's steps (report.json setup_phases; rank 0's), in setup_phase_names order.
    enum class SetupPhase {
        smoother, space_levels, aggregation, prolongator, ghost_rows, galerkin_product, coarse_halo, gathered_levels
    };
    static constexpr std::array<const char*, 8> setup_phase_names{
        "diagonal_and_eigenvalue_estimate", "coarser_space_levels", "aggregation", "prolongator",
        "ghost_prolongator_rows", "galerkin_product", "coarse_level_halo", "gathered_levels"};
    std::array<double, 8> setup_phases_{};
    /// Adds the time since mark (the device synchronised) to phase; mark becomes now.
    void phase_done(SetupPhase phase, std::chrono::steady_clock::time_point& mark);
};

}  // namespace gpufem
