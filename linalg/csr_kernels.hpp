#pragma once
// CSR SpMV kernels, y = alpha A x + beta y: declared once, implemented in cpu/ and cuda/.
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/csr_tuning.hpp"

namespace gpufem {

/// CSR kernels of both backends.
#define GPUFEM_CSR_KERNELS(V, PREFIX, BODY)                                                  \
    /** y = alpha A x + beta y; beta == 0 ignores y's contents. cpu: the reference, one loop \
        per row, OpenMP over rows. cuda: the plain scalar kernel, one thread per row. */     \
    PREFIX void csr_spmv(const Executor& exec, const Csr<V>& a, V alpha, const V* x, V beta, \
                         V* y) BODY                                                          \
    /** d[i] = a_ii (0 where row i stores no diagonal entry); cuda: one thread per row. */   \
    PREFIX void csr_diagonal(const Executor& exec, const Csr<V>& a, V* d) BODY               \
    /** csr_spmv of a matrix with 64-bit row offsets (past 2^31 - 1 entries). */            \
    PREFIX void csr_spmv(const Executor& exec, const WideCsr<V>& a, V alpha, const V* x,     \
                         V beta, V* y) BODY                                                  \
    /** csr_diagonal of a matrix with 64-bit row offsets. */                                \
    PREFIX void csr_diagonal(const Executor& exec, const WideCsr<V>& a, V* d) BODY           \
    /** Entries per row: min, mean, max, from the row offsets where they are (cuda: one      \
        pass of atomics over the rows, two numbers back; no host copy of the offsets). */    \
    PREFIX RowStats csr_row_stats(const Executor& exec, const Csr<V>& a) BODY                \
    /** csr_row_stats of a matrix with 64-bit row offsets. */                                \
    PREFIX RowStats csr_row_stats(const Executor& exec, const WideCsr<V>& a) BODY

/// CSR kernels only the device has (cuda/csr_tuned.cu).
#define GPUFEM_CSR_TUNED_KERNELS(V, PREFIX, BODY)                                            \
    /** The parametrised kernel of 000_… (coop threads per row, repeat rows per group). */   \
    PREFIX void csr_spmv_params(const Executor& exec, const CsrParams& params,               \
                                const Csr<V>& a, V alpha, const V* x, V beta, V* y) BODY     \
    /** The same kernel over 64-bit row offsets (a matrix past 2^31 - 1 entries). */         \
    PREFIX void csr_spmv_params(const Executor& exec, const CsrParams& params,               \
                                const WideCsr<V>& a, V alpha, const V* x, V beta, V* y) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_CSR_KERNELS)
namespace kernels::cuda {
GPUFEM_CUDA_KERNELS(GPUFEM_CSR_TUNED_KERNELS)
}  // namespace kernels::cuda

}  // namespace gpufem
