#pragma once
// Element kernels: declared once, implemented in cpu/element_kernels.cpp and
// cuda/element_kernels.cu on top of element_math.hpp (degree 1, the whole element matrix per
// thread) and element_geometry.hpp (any degree). Both dispatch on ElementData::order.
#include "assembly/element_data.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "assembly/element_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
