#pragma once
// Kernels behind split_owned_columns (linalg/distributed_operator.hpp): declared once,
// implemented in cpu/ and cuda/.
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "linalg/split_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
