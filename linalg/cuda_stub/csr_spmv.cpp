// Stand-in for cuda/csr_spmv.cu when gpufem is built without CUDA.
#include "linalg/csr_kernels.hpp"
#include "linalg/cuda_stub/stub.hpp"

namespace gpufem::kernels::cuda {
template <typename V>
void csr_spmv(const Executor&, const Csr<V>&, V, const V*, V, V*)
{
    detail::no_cuda();
}
template <typename V>
void csr_diagonal(const Executor&, const Csr<V>&, V*)
{
    detail::no_cuda();
}
template void csr_diagonal(const Executor&, const Csr<float>&, float*);
template void csr_diagonal(const Executor&, const Csr<double>&, double*);
template void csr_spmv(const Executor&, const Csr<float>&, float, const float*, float, float*);
template void csr_spmv(const Executor&, const Csr<double>&, double, const double*, double,
                       double*);
}  // namespace gpufem::kernels::cuda
