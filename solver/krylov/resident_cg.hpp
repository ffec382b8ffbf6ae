#pragma once
// CG in one resident kernel: for systems small enough that an iteration's kernel launches and
// their tails, not its bytes, set its time (a few hundred thousand rows), the whole solve runs
// as one cooperative kernel whose blocks all stay resident and meet at grid-wide barriers.
// For bDIA matrices with a diagonal preconditioner or none, on one process. Declared once,
// implemented in cpu/resident_cg_kernels.cpp and cuda/resident_cg_kernels.cu.
#include "linalg/backend_kernels.hpp"
#include "linalg/bdia.hpp"
#include "solver/krylov/merged_kernels.hpp"

namespace gpufem {

/// Most slabs (of bdia_slab rows) one block of the resident kernel owns: its rows' x, r, p, q
/// and z stay in registers, so more slabs a block means more registers a thread.
inline constexpr int resident_cg_max_slabs_per_block = 4;

#define GPUFEM_KERNEL_LIST "solver/krylov/resident_cg_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
