// Stand-in for cuda/reordering_kernels.cu when gpufem is built without CUDA.
#include "linalg/cuda_stub/stub.hpp"
#include "linalg/reordering_kernels.hpp"

namespace gpufem::kernels::cuda {

template <typename V>
void permute_symmetric(const Executor&, const Csr<V>&, const index_type*, index_type*, index_type*,
                       V*)
{
    detail::no_cuda();
}

template <typename V>
void permute_vector(const Executor&, index_type, const index_type*, const V*, V*, bool)
{
    detail::no_cuda();
}

#define GPUFEM_INSTANTIATE(V)                                                                    \
    template void permute_symmetric(const Executor&, const Csr<V>&, const index_type*,          \
                                    index_type*, index_type*, V*);                              \
    template void permute_vector(const Executor&, index_type, const index_type*, const V*, V*, \
                                 bool);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
