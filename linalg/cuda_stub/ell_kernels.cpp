// Stand-in for cuda/ell_kernels.cu when gpufem is built without CUDA.
#include "linalg/cuda_stub/stub.hpp"
#include "linalg/ell.hpp"

namespace gpufem::kernels::cuda {
using detail::no_cuda;

template <typename V>
index_type ell_row_lengths(const Executor&, const Csr<V>&, index_type*)
{
    no_cuda();
}
template <typename V>
void ell_fill(const Executor&, const Csr<V>&, Ell<V>&)
{
    no_cuda();
}
template <typename V>
void ell_spmv(const Executor&, const Ell<V>&, V, const V*, V, V*)
{
    no_cuda();
}

#define GPUFEM_INSTANTIATE(V)                                                           \
    template index_type ell_row_lengths(const Executor&, const Csr<V>&, index_type*);   \
    template void ell_fill(const Executor&, const Csr<V>&, Ell<V>&);                    \
    template void ell_spmv(const Executor&, const Ell<V>&, V, const V*, V, V*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
