#include "linalg/blas1_kernels.hpp"
#include "linalg/cpu/chunked_loops.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void fill(const Executor&, std::size_t n, V value, V* x)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { x[i] = value; });
}

template <typename V>
void axpy(const Executor&, std::size_t n, V alpha, const V* x, V* y)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { y[i] += alpha * x[i]; });
}

template <typename V>
void xpay(const Executor&, std::size_t n, const V* x, V beta, V* y)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { y[i] = x[i] + beta * y[i]; });
}

template <typename V>
void scale(const Executor&, std::size_t n, V alpha, V* x)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { x[i] *= alpha; });
}

template <typename V>
double dot(const Executor&, std::size_t n, const V* x, const V* y)
{
    return chunked_sums<1>(static_cast<long long>(n), [&](long long i, std::array<double, 1>& s) {
        s[0] += static_cast<double>(x[i]) * y[i];
    })[0];
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(fill, axpy, xpay, scale, dot)

}  // namespace gpufem::kernels::cpu
