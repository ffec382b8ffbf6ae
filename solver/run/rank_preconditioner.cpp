#include "solver/run/rank_preconditioner.hpp"

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "solver/multigrid/distributed_amg.hpp"

namespace gpufem {

template <typename V>
KeptRankPreconditioner<V>* kept_rank_preconditioner(RankSweepReuse& reuse)
{
    if (auto* kept = dynamic_cast<KeptRankPreconditioner<V>*>(reuse.preconditioner.get())) return kept;
    auto made = std::make_shared<KeptRankPreconditioner<V>>();
    KeptRankPreconditioner<V>* kept = made.get();
    reuse.preconditioner = std::move(made);
    return kept;
}

namespace {

/// kept's hierarchy updated with system's values, or null when kept holds none or the update
/// failed on the ranks (then kept holds none).
template <typename V>
Preconditioner<V>* updated_hierarchy(const DistributedSystem<V>& system, const RankGroup& group,
                                     KeptRankPreconditioner<V>* kept)
{
    if (!kept || !kept->preconditioner || !system.keeps_rows) return nullptr;
    auto* hierarchy = dynamic_cast<UpdatableAcrossRanks<V>*>(kept->preconditioner.get());
    if (!hierarchy) return nullptr;
    try {
        hierarchy->update(*system.op, distributed_rows(system, group.host, group.device, &kept->spaces));
        return kept->preconditioner.get();
    } catch (const std::logic_error& e) {  // (invalid_argument too) thrown on every rank alike
        if (group.host.rank() == 0)
            spdlog::info("preconditioner {}: the kept hierarchy was not updated ({}); setting it up again",
                         kept->preconditioner->name(), e.what());
        kept->preconditioner.reset();
        kept->spaces.clear();
        return nullptr;
    }
}

}  // namespace

template <typename V>
RankPreconditioner<V> rank_preconditioner(const CaseSpec& spec, const DistributedSystem<V>& system,
                                          const RankGroup& group,
                                          const std::function<std::vector<PartSpace<V>>()>& make_spaces,
                                          KeptRankPreconditioner<V>* kept)
{
    RankPreconditioner<V> out;
    if (Preconditioner<V>* updated = updated_hierarchy(system, group, kept)) {
        out.m = updated;
        out.report = updated->report();
        return out;
    }
    std::vector<PartSpace<V>> spaces = make_spaces ? make_spaces() : std::vector<PartSpace<V>>{};
    SetUpPreconditioner<V> made = distributed_preconditioner(spec, system, group.host, group.device, &spaces);
    out.m = made.preconditioner.get();
    if (out.m) out.report = out.m->report();
    if (kept && dynamic_cast<UpdatableAcrossRanks<V>*>(made.preconditioner.get())) {
        kept->preconditioner = std::move(made.preconditioner);
        kept->spaces = std::move(spaces);
    } else {
        out.owned = std::move(made.preconditioner);
    }
    return out;
}

template KeptRankPreconditioner<float>* kept_rank_preconditioner<float>(RankSweepReuse&);
template KeptRankPreconditioner<double>* kept_rank_preconditioner<double>(RankSweepReuse&);
template RankPreconditioner<float> rank_preconditioner(const CaseSpec&, const DistributedSystem<float>&,
                                                       const RankGroup&,
                                                       const std::function<std::vector<PartSpace<float>>()>&,
                                                       KeptRankPreconditioner<float>*);
template RankPreconditioner<double> rank_preconditioner(const CaseSpec&, const DistributedSystem<double>&,
                                                        const RankGroup&,
                                                        const std::function<std::vector<PartSpace<double>>()>&,
                                                        KeptRankPreconditioner<double>*);

}  // namespace gpufem
