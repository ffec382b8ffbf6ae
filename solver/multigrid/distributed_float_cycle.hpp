#pragma once
// Multigrid in single precision across ranks (see float_cycle.hpp): this rank's rows rounded
// to float behind the system's halo, a DistributedAmg<float> set up on them, and what the next
// point of a coefficient sweep needs to round its new rows and update that hierarchy (its
// aggregates and coarser spaces kept) instead of setting it up again.
#include <memory>
#include <string>
#include <vector>

#include "solver/multigrid/distributed_amg.hpp"
#include "solver/multigrid/float_cycle.hpp"

namespace gpufem {

/// A float V-cycle across ranks inside a double Krylov method, updatable by a sweep's next
/// point. Every call is collective.
class DistributedFloatCycle final : public Preconditioner<double>, public UpdatableAcrossRanks<double> {
public:
    /// The float hierarchy of rows (its coarser spaces rounded to float and kept). Throws
    /// std::invalid_argument on every rank when a rank's rows have 64-bit row offsets (which the
    /// float copy does not take) or the hierarchy cannot be set up. name: the preconditioner's
    /// name for the messages.
    DistributedFloatCycle(const char* name, const DistributedRows<double>& rows, const AmgOptions& options);

    const ExecPtr& executor() const override { return cycle_->executor(); }
    index_type size() const override { return cycle_->size(); }
    std::string name() const override { return cycle_->name(); }
    void apply(const Array<double>& r, Array<double>& z) const override { cycle_->apply(r, z); }
    std::size_t apply_bytes() const override { return cycle_->apply_bytes(); }
    bool graph_capturable() const override { return cycle_->graph_capturable(); }
    /// The float hierarchy's report; its setup and update times include rounding the rows.
    nlohmann::json report() const override;
    /// Rounds rows (the setup's pattern, new values) and updates the float hierarchy with them.
    /// Throws on every rank as DistributedAmg::update does; the hierarchy must then be set up
    /// again.
    void update(const LinearOperator<double>& a, const DistributedRows<double>& rows) override;
    /// Wall time of the last update, rounding included (0: none).
    double update_seconds() const override { return update_seconds_; }

private:
    /// A new float copy of rows' blocks behind rows' halo, and the float hierarchy set up on it
    /// (inner null) or updated with it.
    void round_rows(const DistributedRows<double>& rows, const AmgOptions* options);

    std::string name_;                         ///< the preconditioner's name, for the messages
    std::vector<PartSpace<float>> spaces_;     ///< the coarser spaces in float (the hierarchy's)
    std::unique_ptr<FloatCycle> cycle_;
    DistributedAmg<float>* inner_ = nullptr;   ///< cycle_'s hierarchy
    double setup_seconds_ = 0;                 ///< the setup's wall time, rounding included
    double update_seconds_ = 0;
};

}  // namespace gpufem
