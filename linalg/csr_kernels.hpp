#pragma once
// CSR SpMV kernels, y = alpha A x + beta y: declared once, implemented in cpu/ and cuda/.
#include "linalg/csr.hpp"
#include "linalg/csr_tuning.hpp"

namespace gpufem {

namespace kernels::cpu {
/// Reference SpMV (one loop per row, OpenMP over rows). beta == 0 ignores y's contents.
template <typename V>
void csr_spmv(const Executor& exec, const Csr<V>& a, V alpha, const V* x, V beta, V* y);
/// d[i] = a_ii (0 where row i stores no diagonal entry).
template <typename V>
void csr_diagonal(const Executor& exec, const Csr<V>& a, V* d);
}  // namespace kernels::cpu

namespace kernels::cuda {
/// Plain scalar device SpMV (one thread per row), launched on exec's stream.
template <typename V>
void csr_spmv(const Executor& exec, const Csr<V>& a, V alpha, const V* x, V beta, V* y);
/// d[i] = a_ii (0 where row i stores no diagonal entry), one thread per row.
template <typename V>
void csr_diagonal(const Executor& exec, const Csr<V>& a, V* d);
/// The parametrised kernel of 000_… (coop threads per row, repeat rows per group).
template <typename V>
void csr_spmv_params(const Executor& exec, const CsrParams& params, const Csr<V>& a, V alpha,
                     const V* x, V beta, V* y);
}  // namespace kernels::cuda

}  // namespace gpufem
