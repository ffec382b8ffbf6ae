#pragma once
// BLAS-1 kernels on raw arrays: declared once, implemented in cpu/blas1.cpp and cuda/blas1.cu
// (templates for float and double). Dot products accumulate in double on both backends; the
// CUDA versions run on exec's stream and dot returns to the host (synchronises).
#include <cstddef>

#include "linalg/backend_kernels.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "linalg/blas1_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
