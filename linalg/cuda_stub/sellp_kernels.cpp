// Stand-in for cuda/sellp_kernels.cu when gpufem is built without CUDA.
#include "linalg/cuda_stub/stub.hpp"
#include "linalg/sellp.hpp"

namespace gpufem::kernels::cuda {
using detail::no_cuda;

template <typename V>
void sellp_sort_rows(const Executor&, const Csr<V>&, index_type, index_type*)
{
    no_cuda();
}
template <typename V>
std::int64_t sellp_slice_pointers(const Executor&, const Csr<V>&, const index_type*, Sellp<V>&)
{
    no_cuda();
}
template <typename V>
void sellp_fill(const Executor&, const Csr<V>&, const index_type*, Sellp<V>&, SellpPadding)
{
    no_cuda();
}
template <typename V>
void sellp_spmv(const Executor&, const Sellp<V>&, V, const V*, V, V*)
{
    no_cuda();
}

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template void sellp_sort_rows(const Executor&, const Csr<V>&, index_type, index_type*);    \
    template std::int64_t sellp_slice_pointers(const Executor&, const Csr<V>&,                 \
                                               const index_type*, Sellp<V>&);                  \
    template void sellp_fill(const Executor&, const Csr<V>&, const index_type*, Sellp<V>&,     \
                             SellpPadding);                                                    \
    template void sellp_spmv(const Executor&, const Sellp<V>&, V, const V*, V, V*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
