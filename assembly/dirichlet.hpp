#pragma once
// Symmetric elimination of Dirichlet conditions from an assembled CSR system.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/host_device.hpp"

namespace gpufem {

/// Row i of the elimination (both backends run it once per row): a Dirichlet row keeps only
/// its diagonal and its right-hand side becomes diag * g_i; any other row moves a_ij g_j of its
/// Dirichlet columns j to the right-hand side and zeroes those entries.
template <typename V, typename O>
GPUFEM_HOST_DEVICE inline void eliminate_dirichlet_row(index_type i, const O* __restrict__ ptr,
                                                       const index_type* __restrict__ col, V* __restrict__ val,
                                                       const std::uint8_t* __restrict__ mask,
                                                       const V* __restrict__ g, V* __restrict__ rhs)
{
    if (mask[i]) {
        V diag = 0;
        for (O k = ptr[i]; k < ptr[i + 1]; ++k) {
            if (col[k] == i) diag = val[k];
            else val[k] = 0;
        }
        rhs[i] = diag * g[i];
    } else {
        V sum = 0;
        for (O k = ptr[i]; k < ptr[i + 1]; ++k) {
            if (mask[col[k]]) {
                sum += val[k] * g[col[k]];
                val[k] = 0;
            }
        }
        rhs[i] -= sum;
    }
}

#define GPUFEM_KERNEL_LIST "assembly/dirichlet_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
