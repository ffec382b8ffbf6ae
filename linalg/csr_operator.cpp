#include "linalg/csr_operator.hpp"

namespace gpufem {

template <typename V>
void CsrOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *matrix_.executor();
    GPUFEM_DISPATCH(exec, csr_spmv(exec, matrix_, alpha, x.data(), beta, y.data()));
}

template class CsrOperator<float>;
template class CsrOperator<double>;

}  // namespace gpufem
