#pragma once
// Finite-volume kernels (fv_geometry.hpp's arithmetic over all cells), declared once,
// implemented in cpu/fv_kernels.cpp and cuda/fv_kernels.cu. Every cell gathers its own faces:
// no atomics, the same numbers on every run.
#include "assembly/fv_geometry.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// Sums over the cells for the cell-centred errors (see fv_errors).
struct FvErrorSums {
    double volume = 0;     ///< sum V
    double u = 0;          ///< sum V u (shifted)
    double exact = 0;      ///< sum V u_exact (shifted)
    double l2 = 0;         ///< sum V (u - u_exact)^2
    double l2_exact = 0;   ///< sum V u_exact^2
    double max_error = 0;  ///< max |u - u_exact| (NaN if any is)
};

#define GPUFEM_KERNEL_LIST "assembly/fv_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
