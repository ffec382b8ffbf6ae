#include "linalg/blas1_kernels.hpp"

namespace gpufem::kernels::cpu {
namespace {

template <typename V>
void fill_impl(std::size_t n, V value, V* x)
{
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) x[i] = value;
}

template <typename V>
void axpy_impl(std::size_t n, V alpha, const V* x, V* y)
{
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

template <typename V>
void xpay_impl(std::size_t n, const V* x, V beta, V* y)
{
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] + beta * y[i];
}

template <typename V>
void scale_impl(std::size_t n, V alpha, V* x)
{
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) x[i] *= alpha;
}

template <typename V>
double dot_impl(std::size_t n, const V* x, const V* y)
{
    double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * y[i];
    return sum;
}

}  // namespace

#define GPUFEM_DEFINE_BLAS1(V)                                                                  \
    void fill(const Executor&, std::size_t n, V value, V* x) { fill_impl(n, value, x); }        \
    void axpy(const Executor&, std::size_t n, V alpha, const V* x, V* y)                        \
    {                                                                                           \
        axpy_impl(n, alpha, x, y);                                                              \
    }                                                                                           \
    void xpay(const Executor&, std::size_t n, const V* x, V beta, V* y)                         \
    {                                                                                           \
        xpay_impl(n, x, beta, y);                                                               \
    }                                                                                           \
    void scale(const Executor&, std::size_t n, V alpha, V* x) { scale_impl(n, alpha, x); }      \
    double dot(const Executor&, std::size_t n, const V* x, const V* y)                          \
    {                                                                                           \
        return dot_impl(n, x, y);                                                               \
    }
GPUFEM_DEFINE_BLAS1(float)
GPUFEM_DEFINE_BLAS1(double)

}  // namespace gpufem::kernels::cpu
