#pragma once
// CSR SpMV kernels, y = alpha A x + beta y: declared once, implemented in cpu/ and cuda/.
#include "linalg/csr.hpp"

namespace gpufem {

/// CSR SpMV variants on the device.
enum class CsrKernel {
    scalar,  ///< one thread per row
    warp     ///< one warp (32 threads) per row, shuffle reduction
};

namespace kernels::cpu {
/// Reference SpMV (one loop per row, OpenMP over rows). beta == 0 ignores y's contents.
template <typename V>
void csr_spmv(const Executor& exec, const Csr<V>& a, V alpha, const V* x, V beta, V* y);
}  // namespace kernels::cpu

namespace kernels::cuda {
/// Device SpMV with the chosen variant, launched on exec's stream.
template <typename V>
void csr_spmv(const Executor& exec, CsrKernel kernel, const Csr<V>& a, V alpha, const V* x,
              V beta, V* y);
}  // namespace kernels::cuda

}  // namespace gpufem
