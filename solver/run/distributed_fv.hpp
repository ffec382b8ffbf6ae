#pragma once
// Finite volumes across ranks: each rank holds its own cells and, as ghosts, the face
// neighbours of its own that other ranks hold (assembly/fv_part.hpp). Its rows are the own
// cells' two-point fluxes (a DistributedOperator over the cells' halo); the explicit
// non-orthogonal correction of a row needs the cell gradients of its ghost neighbours, which
// their owners compute from their own neighbours and send: two halo exchanges per corrected
// right-hand side, the values, then the gradients. The correction is then solved as on one
// rank (implicit, or deferred passes: solver/run/fv_correction.hpp).
#include "assembly/fv_discretisation.hpp"
#include "linalg/halo.hpp"
#include "solver/run/distributed_report.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/pipeline.hpp"

namespace gpufem {

struct RankGroup;
template <typename V>
class KeptRankPreconditioner;  // solver/run/rank_preconditioner.hpp

/// The halo plan of a vector with `width` consecutive values per unknown of plan's
/// (3 gradient components per cell).
HaloPlan widened_plan(const HaloPlan& plan, int width);

/// A rank's corrected right-hand side of its own cells (original, i.e. part, order): the ghost
/// cells' values, then their gradients, from their owners.
template <typename V>
class FvRankCorrection final : public RhsCorrection<V> {
public:
    /// disc: the share's discretisation (shared among the ranks, assembled); halo: the part's
    /// halo plan; comm: the device communicator. disc and comm must outlive it.
    FvRankCorrection(const FiniteVolumeDiscretisation<V>& disc, const HaloPlan& halo, index_type own_cells,
                     const ExecPtr& exec, const Communicator& comm);

    int correction_passes() const override { return disc_.correction_passes(); }
    bool correction_is_affine() const override { return disc_.correction_is_affine(); }
    Array<V> corrected_rhs(const Array<V>& u) const override;
    void corrected_rhs_into(const Array<V>& u, Array<V>& out) const override;
    /// Every cell of the share from the own cells' u (part order): the values (the ghosts'
    /// from their owners) and the cell gradients (the ghosts' from their owners), held in
    /// values() and gradients() until the next call. Collective.
    void exchange(const Array<V>& u) const;
    const Array<V>& values() const { return all_; }
    const Array<double>& gradients() const { return gradient_; }

private:
    const FiniteVolumeDiscretisation<V>& disc_;
    index_type own_;
    HaloExchange<V> values_;
    HaloExchange<double> gradients_;
    mutable Array<V> all_, ghosts_;                  ///< every cell's value; the ghosts' as received
    mutable Array<double> gradient_, ghost_gradient_;
};

/// The share's system solved across the ranks of group with the case's solver and
/// preconditioner (of the two-point rows) and the discretisation's correction; the solution
/// (out.x) in part order. phases: setup and solve. kept: a sweep's hierarchy to update (or to
/// keep), or null.
template <typename V>
SystemSolution<V> solve_fv_across_ranks(const CaseSpec& spec, DistributedSystem<V>& system,
                                        const FiniteVolumeDiscretisation<V>& disc, const PartPayload& part,
                                        const RankGroup& group, RankPhases& phases, KeptRankPreconditioner<V>* kept);

/// The fluxes of the own cells' solution x (part order) across the ranks of group: the group
/// fluxes and region integrals summed over the ranks, the own cells' flux fields, and the
/// flux at the share's nodes as the mean over every rank's cells around each (the ranks' sums
/// meet by the whole mesh's node numbers), fields marked Float32 as the case asks: what one
/// rank reports and writes. Collective.
template <typename V>
SolutionFluxes fv_part_fluxes(const CaseSpec& spec, const FiniteVolumeDiscretisation<V>& disc,
                              const PartPayload& part, const RankGroup& group, const Array<V>& x);

}  // namespace gpufem
