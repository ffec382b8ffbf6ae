// Stand-in for cuda/bdia_kernels.cu when gpufem is built without CUDA.
#include "linalg/bdia.hpp"
#include "linalg/cuda_stub/stub.hpp"

namespace gpufem::kernels::cuda {

template <typename V>
void bdia_slab_bands(const Executor&, const Csr<V>&, index_type*, index_type*, std::int64_t*,
                     index_type*)
{
    detail::no_cuda();
}

template <typename V>
void bdia_fill(const Executor&, const Csr<V>&, Bdia<V>&)
{
    detail::no_cuda();
}

template <typename V>
void bdia_spmv(const Executor&, const Bdia<V>&, V, const V*, V, V*, std::size_t)
{
    detail::no_cuda();
}

std::size_t bdia_available_bytes(const Executor&) { detail::no_cuda(); }

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template void bdia_slab_bands(const Executor&, const Csr<V>&, index_type*, index_type*,    \
                                  std::int64_t*, index_type*);                                 \
    template void bdia_fill(const Executor&, const Csr<V>&, Bdia<V>&);                         \
    template void bdia_spmv(const Executor&, const Bdia<V>&, V, const V*, V, V*, std::size_t);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
