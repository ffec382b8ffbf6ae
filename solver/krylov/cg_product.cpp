#include "solver/krylov/cg_product.hpp"

namespace gpufem {

template <typename V>
CgProduct<V>::CgProduct(const LinearOperator<V>& a, bool fuse) : a_(&a)
{
    if (fuse && a.dot_partials() > 0 && a.rows() == a.cols())
        partials_ = Array<double>(a.executor(), a.dot_partials());
}

template <typename V>
void CgProduct<V>::apply(const Array<V>& p, Array<V>& q)
{
    if (fused())
        a_->apply_with_dot(p, q, partials_.data());
    else
        a_->apply(p, q);
}

template <typename V>
void CgProduct<V>::direction(const MergedWorkspace& ws, const Array<V>& z, Array<V>& p, Array<V>& q)
{
    a_->apply_cg_direction(z, &ws.state->beta, p, q, partials_.data());
}

template <typename V>
void CgProduct<V>::alpha(const MergedWorkspace& ws, const Array<V>& p, const Array<V>& q) const
{
    const Executor& e = *a_->executor();
    if (fused())
        GPUFEM_DISPATCH(e, cg_alpha_partials(e, ws, partials_.size(), partials_.data()));
    else
        GPUFEM_DISPATCH(e, cg_alpha(e, ws, p.size(), p.data(), q.data()));
}

template class CgProduct<float>;
template class CgProduct<double>;

}  // namespace gpufem
