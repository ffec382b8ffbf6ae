// Stand-in for cuda/blas1.cu when gpufem is built without CUDA.
#include "linalg/blas1_kernels.hpp"
#include "linalg/cuda_stub/stub.hpp"

namespace gpufem::kernels::cuda {
using detail::no_cuda;
#define GPUFEM_STUB_BLAS1(V)                                                  \
    void fill(const Executor&, std::size_t, V, V*) { no_cuda(); }             \
    void axpy(const Executor&, std::size_t, V, const V*, V*) { no_cuda(); }   \
    void xpay(const Executor&, std::size_t, const V*, V, V*) { no_cuda(); }   \
    void scale(const Executor&, std::size_t, V, V*) { no_cuda(); }            \
    double dot(const Executor&, std::size_t, const V*, const V*) { no_cuda(); }
GPUFEM_STUB_BLAS1(float)
GPUFEM_STUB_BLAS1(double)
}  // namespace gpufem::kernels::cuda
