#pragma once
// BLAS-1 kernels on raw arrays: declared once, implemented in cpu/blas1.cpp and cuda/blas1.cu
// (overloads for float and double). Dot products accumulate in double on both backends; the
// CUDA versions run on exec's stream and dot returns to the host (synchronises).
#include <cstddef>

#include "linalg/backend_kernels.hpp"

namespace gpufem {

#define GPUFEM_BLAS1_KERNELS(V, PREFIX, BODY)                                                \
    /** x[i] = value */                                                                      \
    PREFIX void fill(const Executor& exec, std::size_t n, V value, V* x) BODY                \
    /** y += alpha x */                                                                      \
    PREFIX void axpy(const Executor& exec, std::size_t n, V alpha, const V* x, V* y) BODY    \
    /** y = x + beta y */                                                                    \
    PREFIX void xpay(const Executor& exec, std::size_t n, const V* x, V beta, V* y) BODY     \
    /** x = alpha x */                                                                       \
    PREFIX void scale(const Executor& exec, std::size_t n, V alpha, V* x) BODY               \
    /** x . y, accumulated in double */                                                      \
    PREFIX double dot(const Executor& exec, std::size_t n, const V* x, const V* y) BODY

GPUFEM_DECLARE_OVERLOADS(GPUFEM_BLAS1_KERNELS)

}  // namespace gpufem
