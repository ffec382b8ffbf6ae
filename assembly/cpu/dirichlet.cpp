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
    for (index_type i = 0; i < a.rows; ++i) {
        if (mask[i]) {
            V diag = 0;
            for (O k = ptr[i]; k < ptr[i + 1]; ++k) {
                if (col[k] == i) diag = val[k];
                else val[k] = 0;
            }
            rhs[i] = diag * g[i];
        } else {
            V sum = 0;
            for (O k = ptr[i]; k < ptr[i + 1]; ++k) {
                if (mask[col[k]]) {
                    sum += val[k] * g[col[k]];
                    val[k] = 0;
                }
            }
            rhs[i] -= sum;
        }
    }
}

}  // namespace

template <typename V, typename O>
void apply_dirichlet(const Executor&, Csr<V, O>& a, const std::uint8_t* mask, const V* g, V* rhs)
{
    eliminate(a, mask, g, rhs);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(apply_dirichlet)

}  // namespace gpufem::kernels::cpu
