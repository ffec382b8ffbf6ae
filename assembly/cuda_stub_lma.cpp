// Stand-ins for the CUDA LMA kernels when gpufem is built without CUDA.
#include "assembly/lma_kernels.hpp"
#include "linalg/cuda_stub/stub.hpp"

namespace gpufem::kernels::cuda {
using detail::no_cuda;

template <typename V>
void lma_interleave(const Executor&, index_type, int, bool, const index_type*, const V*, V*)
{
    no_cuda();
}
template <typename V>
void lma_diagonal(const Executor&, const LmaArgs<V>&, index_type, index_type, V*) { no_cuda(); }
template <typename V>
void lma_prepare(const Executor&, index_type, V, const V*, V, V*, const index_type*, index_type,
                 const V*)
{
    no_cuda();
}
template <typename V>
void lma_configure(const Executor&, int, bool, LmaKernel)
{
    no_cuda();
}

template <typename V>
void lma_apply_cells(const Executor&, const LmaArgs<V>&, index_type, index_type, V, const V*, V*,
                     bool, LmaKernel)
{
    no_cuda();
}
template <typename V>
void lma_dirichlet_lift(const Executor&, const LmaArgs<V>&, index_type, index_type, const V*, V*)
{
    no_cuda();
}
template <typename V>
void lma_dirichlet_rows(const Executor&, index_type, const std::uint8_t*, const V*, const V*, V*)
{
    no_cuda();
}
template <typename V>
void lma_scatter_loads(const Executor&, index_type, int, const index_type*, const V*, V*)
{
    no_cuda();
}

GPUFEM_INSTANTIATE_LMA_KERNELS(float)
GPUFEM_INSTANTIATE_LMA_KERNELS(double)

}  // namespace gpufem::kernels::cuda
