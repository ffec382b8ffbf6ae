#pragma once
// BLAS-1 operations on Arrays, dispatched to the arrays' executor.
#include <cmath>
#include <stdexcept>

#include "linalg/array.hpp"
#include "linalg/blas1_kernels.hpp"

namespace gpufem {

namespace detail {
template <typename V>
const Executor& same_executor(const Array<V>& x, const Array<V>& y)
{
    if (x.size() != y.size()) throw std::invalid_argument("BLAS-1: vector sizes differ");
    if (x.executor()->backend() != y.executor()->backend())
        throw std::invalid_argument("BLAS-1: vectors live on different executors");
    return *x.executor();
}
}  // namespace detail

/// x[i] = value
template <typename V>
void fill(Array<V>& x, V value)
{
    const Executor& e = *x.executor();
    GPUFEM_DISPATCH(e, fill(e, x.size(), value, x.data()));
}

/// y += alpha x
template <typename V>
void axpy(V alpha, const Array<V>& x, Array<V>& y)
{
    const Executor& e = detail::same_executor(x, y);
    GPUFEM_DISPATCH(e, axpy(e, x.size(), alpha, x.data(), y.data()));
}

/// y = x + beta y
template <typename V>
void xpay(const Array<V>& x, V beta, Array<V>& y)
{
    const Executor& e = detail::same_executor(x, y);
    GPUFEM_DISPATCH(e, xpay(e, x.size(), x.data(), beta, y.data()));
}

/// x = alpha x
template <typename V>
void scale(V alpha, Array<V>& x)
{
    const Executor& e = *x.executor();
    GPUFEM_DISPATCH(e, scale(e, x.size(), alpha, x.data()));
}

/// x . y, accumulated in double.
template <typename V>
double dot(const Array<V>& x, const Array<V>& y)
{
    const Executor& e = detail::same_executor(x, y);
    return GPUFEM_DISPATCH(e, dot(e, x.size(), x.data(), y.data()));
}

/// ||x||_2 (its square accumulated in double: it underflows below about 1e-160 and
/// overflows above 1e154 for double data; scaled_nrm2 in linalg/scaled_norms.hpp does not)
template <typename V>
double nrm2(const Array<V>& x)
{
    return std::sqrt(dot(x, x));
}

/// max |x[i]|: NaN when an entry is NaN, infinity when one is infinite (a test of finiteness)
template <typename V>
double max_abs(const Array<V>& x)
{
    const Executor& e = *x.executor();
    return GPUFEM_DISPATCH(e, max_abs(e, x.size(), x.data()));
}

/// min |x[i]|: infinity for an empty x, NaN when an entry is NaN
template <typename V>
double min_abs(const Array<V>& x)
{
    const Executor& e = *x.executor();
    return GPUFEM_DISPATCH(e, min_abs(e, x.size(), x.data()));
}

}  // namespace gpufem
