#include "solver/multigrid/distributed_float_cycle.hpp"

#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/distributed_operator.hpp"
#include "linalg/precision.hpp"
#include "linalg/rank_messages.hpp"

namespace gpufem {

namespace {

/// A coarser space of a part with its transfer rounded to float.
PartSpace<float> space_in_float(const PartSpace<double>& space)
{
    const CoarseLattice& lattice = space.lattice;
    return PartSpace<float>{rounded_to_float(space.transfer), space.degree, space.owned, space.offsets,
                            space.ghost_global, space.halo,
                            CoarseLattice{lattice.points.clone_to(lattice.points.executor()), lattice.dim,
                                          lattice.narrow.clone_to(lattice.points.executor())}};
}

}  // namespace

DistributedFloatCycle::DistributedFloatCycle(const char* name, const DistributedRows<double>& rows,
                                             const AmgOptions& options)
    : name_(name)
{
    const auto start = std::chrono::steady_clock::now();
    if (rows.spaces)
        for (const PartSpace<double>& space : *rows.spaces) spaces_.push_back(space_in_float(space));
    round_rows(rows, &options);  // the hierarchy's setup ends synchronised
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void DistributedFloatCycle::update(const LinearOperator<double>& /*a*/, const DistributedRows<double>& rows)
{
    const auto start = std::chrono::steady_clock::now();
    const std::size_t spaces = rows.spaces ? rows.spaces->size() : 0;
    if (any_rank(rows.host, spaces != spaces_.size() || !inner_))
        throw std::invalid_argument(fmt::format("{} update across ranks in float: the rows come with other coarser "
                                                "spaces than the setup's (a new hierarchy is needed)", name_));
    round_rows(rows, nullptr);
    update_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json DistributedFloatCycle::report() const
{
    // The times with the rounding of the rows (the inner hierarchy's leave it out).
    nlohmann::json out = cycle_->report();
    out["setup_seconds"] = update_seconds_ > 0 ? update_seconds_ : setup_seconds_;
    if (update_seconds_ > 0) {
        out["update_seconds"] = update_seconds_;
        out["initial_setup_seconds"] = setup_seconds_;
    }
    return out;
}

void DistributedFloatCycle::round_rows(const DistributedRows<double>& rows, const AmgOptions* options)
{
    if (any_rank(rows.host, rows.wide_local != nullptr))
        throw std::invalid_argument(fmt::format("solver.amg.precision: float (preconditioner {}): a rank's rows have "
                                                "64-bit row offsets, which the float copy does not take; run on more "
                                                "ranks or in double", name_));
    // The fine level's float copy: the owned block and the ghost columns behind the same halo.
    Csr<float> ghost_columns = rounded_to_float(rows.nonlocal);
    auto fine = std::make_unique<DistributedOperator<float>>(float_fine_operator(rows.local),
                                                             ghost_columns.clone_to(ghost_columns.executor()),
                                                             rows.halo, rows.device);
    const DistributedRows<float> float_rows{*fine->local_block().stored_csr(), ghost_columns, rows.halo,
                                            rows.host, rows.device, &spaces_};
    if (options) {
        auto inner = std::make_unique<DistributedAmg<float>>(*fine, float_rows, *options);
        inner_ = inner.get();
        cycle_ = std::make_unique<FloatCycle>(std::move(fine), std::move(inner));
        return;
    }
    try {
        inner_->update(*fine, float_rows);
    } catch (...) {
        inner_ = nullptr;  // the hierarchy is lost with its levels (DistributedAmg::update)
        throw;
    }
    cycle_->replace_fine(std::move(fine));  // the updated hierarchy refers to the new copy
}

}  // namespace gpufem
