// Stand-in for cuda/library_blas.cpp when gpufem is built without CUDA.
#include "linalg/cuda_stub/stub.hpp"
#include "linalg/library_blas.hpp"

namespace gpufem::kernels::cuda {
using detail::no_cuda;
void* cublas_create(const Executor&) { no_cuda(); }
void cublas_destroy(void*) noexcept {}
#define GPUFEM_STUB_CUBLAS(V)                                                                 \
    double cublas_dot(void*, std::size_t, const V*, const V*) { no_cuda(); }     \
    double cublas_nrm2(void*, std::size_t, const V*) { no_cuda(); }              \
    void cublas_axpy(void*, std::size_t, V, const V*, V*) { no_cuda(); }         \
    void cublas_scal(void*, std::size_t, V, V*) { no_cuda(); }                   \
    void cublas_copy(void*, std::size_t, const V*, V*) { no_cuda(); }            \
    void cublas_dgmm(void*, std::size_t, const V*, const V*, V*) { no_cuda(); }
GPUFEM_STUB_CUBLAS(float)
GPUFEM_STUB_CUBLAS(double)
#undef GPUFEM_STUB_CUBLAS
}  // namespace gpufem::kernels::cuda
