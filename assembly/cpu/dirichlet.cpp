#include "assembly/dirichlet.hpp"

namespace gpufem::kernels::cpu {
namespace {

template <typename V, typename O>
void eliminate(Csr<V, O>& a, const std::uint8_t* mask, const V* g, V* rhs)
{
    const O* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    V* val = a.values.data();
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < a.rows; ++i) eliminate_dirichlet_row(i, ptr, col, val, mask, g, rhs);
}

}  // namespace

template <typename V, typename O>
void apply_dirichlet(const Executor&, Csr<V, O>& a, const std::uint8_t* mask, const V* g, V* rhs)
{
    eliminate(a, mask, g, rhs);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(apply_dirichlet)

}  // namespace gpufem::kernels::cpu
