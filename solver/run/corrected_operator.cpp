#include "solver/run/corrected_operator.hpp"

#include "linalg/blas1.hpp"
#include "linalg/reordering.hpp"

namespace gpufem {

template <typename V>
CorrectedOperator<V>::CorrectedOperator(const LinearOperator<V>& a, const Array<index_type>& permutation,
                                        const RhsCorrection<V>& correction)
    : a_(a), permutation_(permutation), correction_source_(correction)
{
    Array<V> zero(a_.executor(), static_cast<std::size_t>(a_.rows()));
    fill(zero, V(0));
    at_zero_ = correction_source_.corrected_rhs(zero);
    if (permutation_.empty()) {
        rhs_ = at_zero_.clone_to(a_.executor());
    } else {
        rhs_ = Array<V>(a_.executor(), at_zero_.size());
        permute_vector(permutation_, at_zero_, rhs_, false);
    }
}

template <typename V>
void CorrectedOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    // y = alpha (A x - P C P^T x) + beta y, C x = b(P^T x) - b(0); P the format's renumbering.
    const Array<index_type>& perm = permutation_;
    const std::size_t n = x.size();
    const Array<V>* original = &x;
    if (!perm.empty()) {
        if (x_original_.size() != n) x_original_ = Array<V>(x.executor(), n);
        permute_vector(perm, x, x_original_, true);
        original = &x_original_;
    }
    correction_source_.corrected_rhs_into(*original, correction_);
    axpy(V(-1), at_zero_, correction_);
    const Array<V>* cx = &correction_;
    if (!perm.empty()) {
        if (permuted_.size() != n) permuted_ = Array<V>(x.executor(), n);
        permute_vector(perm, correction_, permuted_, false);
        cx = &permuted_;
    }
    a_.apply(alpha, x, beta, y);
    axpy(-alpha, *cx, y);
}

template class CorrectedOperator<float>;
template class CorrectedOperator<double>;

}  // namespace gpufem
