#pragma once
// Kernels behind the symmetric permutation of CSR matrices and vectors (linalg/reordering.hpp):
// declared once, implemented in cpu/ and cuda/.
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "linalg/reordering_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
