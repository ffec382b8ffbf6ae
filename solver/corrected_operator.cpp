#include "solver/corrected_operator.hpp"

#include "linalg/blas1.hpp"

namespace gpufem {

template <typename V>
CorrectedOperator<V>::CorrectedOperator(const DiscreteSystem<V>& system, const Discretisation<V>& disc)
    : system_(system), disc_(disc), a_(*system.op.op)
{
    Array<V> zero(a_.executor(), static_cast<std::size_t>(a_.rows()));
    fill(zero, V(0));
    at_zero_ = disc_.corrected_rhs(zero);
    rhs_ = reordered(system_.op, at_zero_, false);
}

template <typename V>
void CorrectedOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    // t = A x - P (b(P^T x) - b(0)), then y = alpha t + beta y.
    Array<V> correction = disc_.corrected_rhs(reordered(system_.op, x, true));
    axpy(V(-1), at_zero_, correction);
    Array<V> t = reordered(system_.op, correction, false);
    a_.apply(V(1), x, V(-1), t);
    if (beta == V(0)) {
        y.copy_from(t);
        if (alpha != V(1)) scale(alpha, y);
    } else {
        scale(beta, y);
        axpy(alpha, t, y);
    }
}

template class CorrectedOperator<float>;
template class CorrectedOperator<double>;

}  // namespace gpufem
