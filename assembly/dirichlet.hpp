#pragma once
// Symmetric elimination of Dirichlet conditions from an assembled CSR system.
#include <cstdint>

#include "linalg/csr.hpp"

namespace gpufem {

/// For each row i: if mask[i], the row becomes a_ii e_i with rhs_i = a_ii g_i; otherwise
/// every a_ij with mask[j] moves to the right side (rhs_i -= a_ij g_j) and is zeroed. The
/// pattern is kept (eliminated entries stay as explicit zeros), the matrix stays symmetric.
namespace kernels::cpu {
template <typename V>
void apply_dirichlet(const Executor& exec, Csr<V>& a, const std::uint8_t* mask, const V* g, V* rhs);
}
namespace kernels::cuda {
template <typename V>
void apply_dirichlet(const Executor& exec, Csr<V>& a, const std::uint8_t* mask, const V* g, V* rhs);
}

}  // namespace gpufem
