#pragma once
// Multigrid in single precision inside a double Krylov method (nekRS's pfloat, Kronbichler and
// Ljungkvist's mixed-precision multigrid): the hierarchy is set up in float from a float copy
// of the system's matrix, and each apply rounds the residual to float, runs the float cycle
// and widens its result. A preconditioner only approximates A^-1, so its rounding costs the
// outer method little, while every level moves half the bytes; the solution is still
// converged to the double tolerance against the double system.
#include <memory>

#include "linalg/csr.hpp"
#include "linalg/linear_operator.hpp"
#include "solver/krylov/preconditioner.hpp"

namespace gpufem {

/// The float copy of a double system's fine level for a float hierarchy: its matrix (in the
/// operator's numbering) rounded to float, as the hierarchy's other levels are stored (csr
/// with its fixed rule: no run-time tuner, whose SpMVs would keep the solve out of a CUDA
/// graph), keeping its CSR arrays for the setup (stored_csr).
std::unique_ptr<LinearOperator<float>> float_fine_operator(const Csr<double>& matrix);

/// A float preconditioner of a float copy of the system applied to a double system (see the
/// header comment).
class FloatCycle final : public Preconditioner<double> {
public:
    /// fine: the float copy of the fine level (float_fine_operator), which inner (the
    /// hierarchy set up on it) smooths with; both kept.
    FloatCycle(std::unique_ptr<LinearOperator<float>> fine, std::unique_ptr<Preconditioner<float>> inner);

    const ExecPtr& executor() const override { return fine_->executor(); }
    index_type size() const override { return inner_->size(); }
    std::string name() const override { return inner_->name(); }
    /// z = widen(M_float^-1 round(r)).
    void apply(const Array<double>& r, Array<double>& z) const override;
    /// The float cycle's bytes, and reading r and writing z in double and float.
    std::size_t apply_bytes() const override;
    bool graph_capturable() const override { return inner_->graph_capturable(); }
    /// The float hierarchy's report, with "precision": "float" and the float copy's bytes.
    nlohmann::json report() const override;
    /// The next point of a coefficient sweep: matrix's float copy becomes the fine level and
    /// the inner hierarchy takes its values (its own update, aggregates kept). False without a
    /// matrix, when the fine level is not a copy of the matrix (pmg's float copy of lma or pa),
    /// or when the inner hierarchy cannot be updated (then it is set up again).
    bool update(const LinearOperator<double>& a, const Csr<double>* matrix) override;
    double update_seconds() const override { return update_seconds_; }
    /// The float hierarchy itself (benchmarks time its cycle level by level).
    const Preconditioner<float>& inner() const { return *inner_; }
    /// The fine level's new float copy, which the inner hierarchy was just updated on by its
    /// own means (a hierarchy across ranks); the old copy is released.
    void replace_fine(std::unique_ptr<LinearOperator<float>> fine) { fine_ = std::move(fine); }

private:
    std::unique_ptr<LinearOperator<float>> fine_;  ///< declared first: inner_ refers to it
    std::unique_ptr<Preconditioner<float>> inner_;
    mutable Array<float> r_, z_;  ///< the float residual and correction (no allocation after the first)
    double update_seconds_ = 0;
};

}  // namespace gpufem
