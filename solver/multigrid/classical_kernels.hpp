#pragma once
// Kernels of classical coarsening: declared once, implemented in cpu/classical_kernels.cpp
// (the readable reference) and cuda/classical_kernels.cu over the same row functions
// (classical_rows.hpp), so both backends make the same strength, splitting and interpolation.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "solver/multigrid/classical_rows.hpp"

namespace gpufem {

/// What a PMIS splitting found: the number of C points and of rounds.
struct PmisCount {
    index_type count = 0;
    int rounds = 0;
};

#define GPUFEM_KERNEL_LIST "solver/multigrid/classical_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
