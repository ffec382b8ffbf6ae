#pragma once
// The preconditioner of a run across ranks, and what the points of a coefficient sweep under
// mpirun keep of it: a multigrid hierarchy (amg, pmg, in double or float) and the coarser
// spaces it was set up with, which the next point (the same parts, another kappa) updates with
// its values instead of setting up again (UpdatableAcrossRanks::update), as solve_system does
// on one process.
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "solver/multigrid/part_space.hpp"
#include "solver/run/distributed_run.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/pipeline.hpp"

namespace gpufem {

/// A sweep's kept multigrid across ranks, of value type V (null preconditioner: none yet).
template <typename V>
class KeptRankPreconditioner final : public KeptPreconditioner {
public:
    std::unique_ptr<Preconditioner<V>> preconditioner;  ///< one that is UpdatableAcrossRanks
    std::vector<PartSpace<V>> spaces;                   ///< the coarser spaces it was set up with
};

/// A preconditioner ready for the solve across ranks.
template <typename V>
struct RankPreconditioner {
    const Preconditioner<V>* m = nullptr;        ///< null: none
    std::unique_ptr<Preconditioner<V>> owned;    ///< m where no sweep keeps it
    nlohmann::json report;                       ///< its report (an update's marked "updated")
};

/// The kept preconditioner of value type V in reuse (made there when it holds none).
template <typename V>
KeptRankPreconditioner<V>* kept_rank_preconditioner(RankSweepReuse& reuse);

/// The case's preconditioner on system across the ranks of group: kept's hierarchy updated
/// with system's values where kept holds one (a failed update, e.g. another pattern, sets up
/// again), else set up on the coarser spaces make_spaces gives (none when it is empty) and,
/// for amg and pmg, put into kept. Collective.
template <typename V>
RankPreconditioner<V> rank_preconditioner(const CaseSpec& spec, const DistributedSystem<V>& system,
                                          const RankGroup& group,
                                          const std::function<std::vector<PartSpace<V>>()>& make_spaces,
                                          KeptRankPreconditioner<V>* kept);

}  // namespace gpufem
