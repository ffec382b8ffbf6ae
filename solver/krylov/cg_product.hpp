#pragma once
// CG's product and its dot p.Ap: through the operator's product fused with the dot when its
// format offers one (LinearOperator::apply_with_dot: one pass writes q and per-block partial
// sums, a small reduction of the partials gives alpha), else the product and then cg_alpha's
// own pass over p and q. Used by the merged CG and by the Lanczos estimates of the multigrid
// smoothers.
#include "linalg/array.hpp"
#include "linalg/linear_operator.hpp"
#include "solver/krylov/merged_kernels.hpp"

namespace gpufem {

/// q = A p and alpha = rho / p.q for the merged CG kernels, the scalars on the device.
template <typename V>
class CgProduct {
public:
    /// fuse: take the operator's fused product when it has one (false: always separate).
    CgProduct(const LinearOperator<V>& a, bool fuse);
    /// q = A p (and the partials of p.q when fused).
    void apply(const Array<V>& p, Array<V>& q);
    /// alpha = rho / p.q (ScalarStep::cg_alpha; on several processes the caller finishes it).
    void alpha(const MergedWorkspace& ws, const Array<V>& p, const Array<V>& q) const;
    /// True when the product computes p.q in its own pass.
    bool fused() const { return !partials_.empty(); }
    /// CG's direction in the product's pass (fused() only): p = z + beta p, q = A z + beta q
    /// (= A p), and the partials of p.q, beta the solve's own in ws.state on the device.
    void direction(const MergedWorkspace& ws, const Array<V>& z, Array<V>& p, Array<V>& q);
    /// The partial sums of p.q the last fused product left (fused() only).
    const Array<double>& partials() const { return partials_; }

private:
    const LinearOperator<V>* a_;
    Array<double> partials_;  ///< the fused product's partial sums (empty: separate)
};

}  // namespace gpufem
