#include "solver/run/distributed_fv.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "linalg/executor.hpp"
#include "linalg/rank_messages.hpp"
#include "solver/run/distributed_run.hpp"
#include "solver/run/fv_correction.hpp"
#include "solver/run/part_fluxes.hpp"
#include "solver/run/rank_preconditioner.hpp"
#include "solver/run/solve_run.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// count values of from at dst[offset ..] (same executor).
template <typename T>
void place(const Array<T>& from, Array<T>& dst, std::size_t offset)
{
    if (from.empty()) return;
    const Executor& e = *dst.executor();
    copy_bytes(e, dst.data() + offset, e, from.data(), from.bytes());
}

}  // namespace

HaloPlan widened_plan(const HaloPlan& plan, int width)
{
    HaloPlan out;
    for (const HaloPlan::Send& send : plan.sends) {
        HaloPlan::Send wide{send.peer, {}};
        wide.local.reserve(send.local.size() * static_cast<std::size_t>(width));
        for (index_type l : send.local)
            for (int k = 0; k < width; ++k) wide.local.push_back(width * l + k);
        out.sends.push_back(std::move(wide));
    }
    for (const GhostBlock& block : plan.receives) out.receives.push_back({block.owner, width * block.count});
    return out;
}

template <typename V>
FvRankCorrection<V>::FvRankCorrection(const FiniteVolumeDiscretisation<V>& disc, const HaloPlan& halo,
                                      index_type own_cells, const ExecPtr& exec, const Communicator& comm)
    : disc_(disc), own_(own_cells), values_(halo, exec, comm), gradients_(widened_plan(halo, 3), exec, comm),
      all_(exec, static_cast<std::size_t>(own_cells + halo.ghosts())),
      ghosts_(exec, static_cast<std::size_t>(halo.ghosts())),
      gradient_(exec, 3 * static_cast<std::size_t>(own_cells + halo.ghosts())),
      ghost_gradient_(exec, 3 * static_cast<std::size_t>(halo.ghosts()))
{
}

template <typename V>
void FvRankCorrection<V>::exchange(const Array<V>& u) const
{
    if (u.size() != static_cast<std::size_t>(own_)) throw std::logic_error("FvRankCorrection: not the own cells' values");
    place(u, all_, 0);
    values_.update(u, ghosts_);
    place(ghosts_, all_, static_cast<std::size_t>(own_));
    disc_.own_gradients(all_, gradient_);
    gradients_.update(gradient_, ghost_gradient_);
    place(ghost_gradient_, gradient_, 3 * static_cast<std::size_t>(own_));
}

template <typename V>
void FvRankCorrection<V>::corrected_rhs_into(const Array<V>& u, Array<V>& out) const
{
    exchange(u);
    disc_.own_corrected_rhs(all_, gradient_, out);
}

template <typename V>
Array<V> FvRankCorrection<V>::corrected_rhs(const Array<V>& u) const
{
    Array<V> out;
    corrected_rhs_into(u, out);
    return out;
}

template <typename V>
SystemSolution<V> solve_fv_across_ranks(const CaseSpec& spec, DistributedSystem<V>& system,
                                        const FiniteVolumeDiscretisation<V>& disc, const PartPayload& part,
                                        const RankGroup& group, RankPhases& phases, KeptRankPreconditioner<V>* kept)
{
    auto start = clock_type::now();
    const RankPreconditioner<V> m = rank_preconditioner<V>(spec, system, group, {}, kept);
    phases.setup = seconds_since(start);
    start = clock_type::now();
    SystemSolution<V> out;
    if (m.m) out.preconditioner = m.report;
    const FvRankCorrection<V> correction(disc, part.halo, part.numbering.layout.owned, group.exec, group.device);
    SolveRun<V> run(*system.op, system.permutation, spec.solver, &correction, m.m, out,
                    group.device);
    Array<V> x = system.initial_guess.clone_to(group.exec);
    Array<V> corrected_b;
    bool finished = false;
    if (disc.correction_passes() > 0)
        finished = solve_with_correction(run, system.rhs, x, corrected_b) == CorrectionSolve::implicit;
    else
        run.pass(system.rhs, x, spec.solver.tolerance, "solve");
    if (!finished)
        check_true_residual(*system.op, corrected_b.empty() ? system.rhs : corrected_b, x, spec.solver.tolerance,
                            out.result, group.device);
    phases.solve = seconds_since(start);
    out.seconds = phases.setup + phases.solve;
    out.x = in_part_order(system, x);
    return out;
}

template <typename V>
SolutionFluxes fv_part_fluxes(const CaseSpec& spec, const FiniteVolumeDiscretisation<V>& disc,
                              const PartPayload& part, const RankGroup& group, const Array<V>& x)
{
    const FvRankCorrection<V> share(disc, part.halo, part.numbering.layout.owned, group.exec, group.device);
    share.exchange(x);
    FvShareFluxes mine = disc.share_fluxes(share.values(), share.gradients());
    const std::vector<index_type>& global = part.part.global_nodes;
    const std::size_t nodes = global.size();
    if (mine.node_sums.size() != 4 * nodes) throw std::logic_error("fv_part_fluxes: a share without its node numbers");
    // The nodes of the own cells (the others are in no piece) meet their other ranks' sums.
    std::vector<long long> keys;
    std::vector<double> entries;
    std::vector<std::size_t> at;
    const double* volume = mine.node_sums.data() + 3 * nodes;
    for (std::size_t k = 0; k < nodes; ++k) {
        if (volume[k] == 0.0) continue;
        keys.push_back(global[k]), at.push_back(k);
        entries.insert(entries.end(), mine.node_sums.begin() + static_cast<std::ptrdiff_t>(3 * k),
                       mine.node_sums.begin() + static_cast<std::ptrdiff_t>(3 * k + 3));
        entries.push_back(volume[k]);
    }
    const std::vector<double> totals = sums_by_key(group.host, keys, entries, 4);
    const ExecPtr host = Executor::create_cpu();
    Array<double> sum(host, 3 * nodes), weight(host, nodes);
    fill(sum, 0.0), fill(weight, 0.0);
    for (std::size_t j = 0; j < at.size(); ++j) {
        std::copy_n(totals.begin() + static_cast<std::ptrdiff_t>(4 * j), 3, sum.data() + 3 * at[j]);
        weight.data()[at[j]] = totals[4 * j + 3];
    }
    SolutionFluxes out = std::move(mine.fluxes);
    out.point_fields = node_mean_fields(part.part.mesh.dim, sum, weight, false);
    out.report = summed_over_ranks(group.host, std::move(out.report));
    set_flux_field_precision(out, spec.output.flux_precision == Precision::float32);
    return out;
}

#define GPUFEM_INSTANTIATE(V)                                                                                     \
    template class FvRankCorrection<V>;                                                                          \
    template SystemSolution<V> solve_fv_across_ranks(const CaseSpec&, DistributedSystem<V>&,                    \
                                                     const FiniteVolumeDiscretisation<V>&, const PartPayload&,   \
                                                     const RankGroup&, RankPhases&,                       \
                                                     KeptRankPreconditioner<V>*);                          \
    template SolutionFluxes fv_part_fluxes(const CaseSpec&, const FiniteVolumeDiscretisation<V>&,               \
                                           const PartPayload&, const RankGroup&, const Array<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
