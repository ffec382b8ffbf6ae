// Stand-in for cuda/staircase_kernels.cu when gpufem is built without CUDA.
#include "linalg/cuda_stub/stub.hpp"
#include "linalg/staircase.hpp"

namespace gpufem::kernels::cuda {

template <typename V>
void staircase_fill(const Executor&, const Csr<V>&, StaircaseMatrix<V>&)
{
    detail::no_cuda();
}

template <typename V>
void staircase_spmv(const Executor&, const StaircaseMatrix<V>&, V, const V*, V, V*,
                    const StaircaseStreams*)
{
    detail::no_cuda();
}

StaircaseStreams create_staircase_streams(const Executor&, int) { detail::no_cuda(); }

// Nothing can have been created without CUDA (and a destructor must not throw).
void destroy_staircase_streams(StaircaseStreams&) noexcept {}

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template void staircase_fill(const Executor&, const Csr<V>&, StaircaseMatrix<V>&);         \
    template void staircase_spmv(const Executor&, const StaircaseMatrix<V>&, V, const V*, V, V*, \
                                 const StaircaseStreams*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
