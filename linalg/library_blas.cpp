#include "linalg/library_blas.hpp"

#include <cmath>
#include <stdexcept>

#include "linalg/blas1_kernels.hpp"

namespace gpufem {

namespace {
template <typename V>
void check_sizes(const Array<V>& x, const Array<V>& y)
{
    if (x.size() != y.size()) throw std::invalid_argument("LibraryBlas: vector sizes differ");
}
}  // namespace

template <typename V>
LibraryBlas<V>::LibraryBlas(ExecPtr exec) : exec_(std::move(exec))
{
    if (exec_->is_cuda()) handle_ = kernels::cuda::cublas_create(*exec_);
}

template <typename V>
LibraryBlas<V>::~LibraryBlas()
{
    if (handle_) kernels::cuda::cublas_destroy(handle_);
}

template <typename V>
double LibraryBlas<V>::dot(const Array<V>& x, const Array<V>& y) const
{
    check_sizes(x, y);
    if (handle_) return kernels::cuda::cublas_dot(handle_, x.size(), x.data(), y.data());
    return kernels::cpu::dot(*exec_, x.size(), x.data(), y.data());
}

template <typename V>
double LibraryBlas<V>::nrm2(const Array<V>& x) const
{
    if (handle_) return kernels::cuda::cublas_nrm2(handle_, x.size(), x.data());
    return std::sqrt(kernels::cpu::dot(*exec_, x.size(), x.data(), x.data()));
}

template <typename V>
void LibraryBlas<V>::axpy(V alpha, const Array<V>& x, Array<V>& y) const
{
    check_sizes(x, y);
    if (handle_) return kernels::cuda::cublas_axpy(handle_, x.size(), alpha, x.data(), y.data());
    kernels::cpu::axpy(*exec_, x.size(), alpha, x.data(), y.data());
}

template <typename V>
void LibraryBlas<V>::scal(V alpha, Array<V>& x) const
{
    if (handle_) return kernels::cuda::cublas_scal(handle_, x.size(), alpha, x.data());
    kernels::cpu::scale(*exec_, x.size(), alpha, x.data());
}

template <typename V>
void LibraryBlas<V>::copy(const Array<V>& x, Array<V>& y) const
{
    check_sizes(x, y);
    if (handle_) return kernels::cuda::cublas_copy(handle_, x.size(), x.data(), y.data());
    y.copy_from(x);
}

template <typename V>
void LibraryBlas<V>::diag_multiply(const Array<V>& d, const Array<V>& x, Array<V>& y) const
{
    check_sizes(d, x);
    check_sizes(x, y);
    if (handle_) return kernels::cuda::cublas_dgmm(handle_, x.size(), d.data(), x.data(), y.data());
    kernels::cpu::diag_multiply(*exec_, x.size(), d.data(), x.data(), y.data());
}

template class LibraryBlas<float>;
template class LibraryBlas<double>;

}  // namespace gpufem
