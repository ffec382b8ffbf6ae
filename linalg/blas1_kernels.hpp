#pragma once
// BLAS-1 kernels on raw arrays: declared once, implemented in cpu/blas1.cpp and cuda/blas1.cu.
// Dot products accumulate in double on both backends.
#include <cstddef>

#include "linalg/executor.hpp"

namespace gpufem::kernels {

#define GPUFEM_DECLARE_BLAS1(V)                                                            \
    void fill(const Executor& exec, std::size_t n, V value, V* x);                         \
    void axpy(const Executor& exec, std::size_t n, V alpha, const V* x, V* y);             \
    void xpay(const Executor& exec, std::size_t n, const V* x, V beta, V* y);              \
    void scale(const Executor& exec, std::size_t n, V alpha, V* x);                        \
    double dot(const Executor& exec, std::size_t n, const V* x, const V* y);

/// Reference implementations (plain loops, OpenMP).
namespace cpu {
GPUFEM_DECLARE_BLAS1(float)
GPUFEM_DECLARE_BLAS1(double)
}  // namespace cpu

/// CUDA implementations on exec's stream; dot returns to the host (synchronises).
namespace cuda {
GPUFEM_DECLARE_BLAS1(float)
GPUFEM_DECLARE_BLAS1(double)
}  // namespace cuda

#undef GPUFEM_DECLARE_BLAS1

}  // namespace gpufem::kernels
