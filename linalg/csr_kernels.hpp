#pragma once
// CSR SpMV kernels, y = alpha A x + beta y: declared once, implemented in cpu/ and cuda/.
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/csr_tuning.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "linalg/csr_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

namespace kernels::cuda {
/// The parametrised kernel of Reguly & Giles 2012 (coop threads per row, repeat rows per
/// group), over 32-bit or 64-bit row offsets (O = wide_offset_type: a matrix past 2^31 - 1
/// entries); the device only has it (cuda/csr_tuned.cu).
template <typename V, typename O>
void csr_spmv_params(const Executor& exec, const CsrParams& params, const Csr<V, O>& a, V alpha,
                     const V* x, V beta, V* y) GPUFEM_CUDA_BODY
}  // namespace kernels::cuda

}  // namespace gpufem
