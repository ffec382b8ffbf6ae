#include "linalg/library_blas.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void diag_multiply(const Executor&, std::size_t n, const V* d, const V* x, V* y)
{
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) y[i] = d[i] * x[i];
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(diag_multiply)

}  // namespace gpufem::kernels::cpu
