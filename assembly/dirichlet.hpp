#pragma once
// Symmetric elimination of Dirichlet conditions from an assembled CSR system.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

#define GPUFEM_DIRICHLET_KERNELS(V, PREFIX, BODY)                                            \
    /** For each row i: if mask[i], the row becomes a_ii e_i with rhs_i = a_ii g_i;           \
        otherwise every a_ij with mask[j] moves to the right side (rhs_i -= a_ij g_j) and is  \
        zeroed. The pattern is kept (eliminated entries stay as explicit zeros), the matrix   \
        stays symmetric. */                                                                   \
    PREFIX void apply_dirichlet(const Executor& exec, Csr<V>& a, const std::uint8_t* mask,    \
                                const V* g, V* rhs) BODY                                     \
    /** The same for a matrix with 64-bit row offsets. */                                     \
    PREFIX void apply_dirichlet(const Executor& exec, WideCsr<V>& a, const std::uint8_t* mask, \
                                const V* g, V* rhs) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_DIRICHLET_KERNELS)

}  // namespace gpufem
