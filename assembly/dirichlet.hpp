#pragma once
// Symmetric elimination of Dirichlet conditions from an assembled CSR system.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "assembly/dirichlet_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
