#include "solver/krylov/preconditioner.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "solver/krylov/merged_kernels.hpp"

namespace gpufem {

namespace {

/// 1 / a_ii from the operator's diagonal.
template <typename V>
Array<V> jacobi_inverse(const LinearOperator<V>& a)
{
    const Array<V>& diagonal = a.diagonal();
    if (diagonal.empty() && a.rows() > 0)
        throw std::invalid_argument(fmt::format(
            "preconditioner jacobi: the '{}' operator carries no diagonal", a.format()));
    Array<V> inverse(a.executor(), diagonal.size());
    const Executor& exec = *a.executor();
    const long long bad =
        GPUFEM_DISPATCH(exec, invert_diagonal(exec, diagonal.size(), diagonal.data(), inverse.data()));
    if (bad >= 0) {
        const V value = diagonal.to_host()[static_cast<std::size_t>(bad)];
        throw std::invalid_argument(fmt::format(
            "preconditioner jacobi: diagonal entry of row {} is {} (Jacobi needs a non-zero, "
            "finite diagonal); use solver.preconditioner: none",
            bad, static_cast<double>(value)));
    }
    return inverse;
}

}  // namespace

template <typename V>
JacobiPreconditioner<V>::JacobiPreconditioner(const LinearOperator<V>& a)
    : exec_(a.executor()), inverse_(jacobi_inverse(a))
{
}

template <typename V>
void JacobiPreconditioner<V>::apply(const Array<V>& r, Array<V>& z) const
{
    if (!blas_) blas_ = std::make_unique<LibraryBlas<V>>(exec_);
    blas_->diag_multiply(inverse_, r, z);
}

template class JacobiPreconditioner<float>;
template class JacobiPreconditioner<double>;

}  // namespace gpufem
