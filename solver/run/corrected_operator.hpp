#pragma once
// A discretisation's corrected system as one linear operator: x -> A x - (b(x) - b(0)), with
// b(x) = RhsCorrection::corrected_rhs(x) affine in x (finite volumes' explicit
// non-orthogonal correction, unlimited), in the system operator's numbering. Solving
// (A - C) x = b(0) with a Krylov method reaches the deferred correction's fixed point in one
// solve (fv.correction: implicit); A's own preconditioner (AMG of the two-point matrix)
// preconditions it. Non-symmetric: BiCGSTAB.
#include "assembly/rhs_correction.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// The corrected operator of a system (everything passed must outlive it).
template <typename V>
class CorrectedOperator final : public LinearOperator<V> {
public:
    /// a: the system's operator; permutation: its numbering (new -> original; empty: none);
    /// correction: b(u) in the original numbering (a rank's rows across ranks).
    CorrectedOperator(const LinearOperator<V>& a, const Array<index_type>& permutation,
                      const RhsCorrection<V>& correction);

    index_type rows() const override { return a_.rows(); }
    index_type cols() const override { return a_.cols(); }
    const ExecPtr& executor() const override { return a_.executor(); }
    std::string format() const override { return a_.format() + "+correction"; }
    std::size_t bytes_stored() const override { return a_.bytes_stored(); }
    std::size_t spmv_min_bytes() const override { return a_.spmv_min_bytes(); }
    /// Its first product allocates the scratch: not captured in a CUDA graph.
    bool graph_capturable() const override { return false; }
    /// b(0) in the operator's numbering: the corrected system's right-hand side.
    const Array<V>& rhs() const { return rhs_; }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    const LinearOperator<V>& a_;
    const Array<index_type>& permutation_;
    const RhsCorrection<V>& correction_source_;
    Array<V> at_zero_;  ///< b(0), original numbering
    Array<V> rhs_;      ///< b(0), the operator's numbering
    // Scratch of the products (kept: no allocation after the first).
    mutable Array<V> x_original_;   ///< x in the original numbering (formats that renumber)
    mutable Array<V> correction_;   ///< b(x) - b(0) = C x, original numbering
    mutable Array<V> permuted_;     ///< C x in the operator's numbering (formats that renumber)
};

}  // namespace gpufem
