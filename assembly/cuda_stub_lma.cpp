// Stand-ins for the CUDA LMA kernels when gpufem is built without CUDA.
#include <stdexcept>

#include "assembly/lma_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {
[[noreturn]] void no_cuda() { throw std::runtime_error("gpufem was built without CUDA"); }
}  // namespace

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

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template void lma_interleave(const Executor&, index_type, int, bool, const index_type*,   \
                                 const V*, V*);                                                \
    template void lma_diagonal(const Executor&, const LmaArgs<V>&, index_type, index_type, V*); \
    template void lma_prepare(const Executor&, index_type, V, const V*, V, V*,                 \
                              const index_type*, index_type, const V*);                        \
    template void lma_configure<V>(const Executor&, int, bool, LmaKernel);                     \
    template void lma_apply_cells(const Executor&, const LmaArgs<V>&, index_type, index_type, \
                                  V, const V*, V*, bool, LmaKernel);                           \
    template void lma_dirichlet_lift(const Executor&, const LmaArgs<V>&, index_type,           \
                                     index_type, const V*, V*);                                \
    template void lma_dirichlet_rows(const Executor&, index_type, const std::uint8_t*,         \
                                     const V*, const V*, V*);                                  \
    template void lma_scatter_loads(const Executor&, index_type, int, const index_type*,       \
                                    const V*, V*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
