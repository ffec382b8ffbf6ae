// Stand-ins for the CUDA backend of linalg/ when gpufem is built without CUDA: every entry
// point throws "built without CUDA" (device_count reports 0, so nothing asks for them).
#include <stdexcept>

#include "linalg/blas1_kernels.hpp"
#include "linalg/csr_kernels.hpp"
#include "linalg/csr_operator.hpp"
#include "linalg/device_runtime.hpp"
#include "linalg/interval_timer.hpp"

namespace gpufem {
namespace {
[[noreturn]] void no_cuda() { throw std::runtime_error("gpufem was built without CUDA"); }
}  // namespace

namespace cuda {
bool is_built() { return false; }
int device_count() { return 0; }
std::string device_name(int) { no_cuda(); }
void* create_stream(int) { no_cuda(); }
void destroy_stream(void*) noexcept {}
void synchronize(void*) { no_cuda(); }
void* malloc(int, std::size_t) { no_cuda(); }
void free(int, void*) noexcept {}
void memcpy_to_device(void*, const void*, std::size_t, void*) { no_cuda(); }
void memcpy_to_host(void*, const void*, std::size_t, void*) { no_cuda(); }
void memcpy_device(void*, const void*, std::size_t, void*) { no_cuda(); }
}  // namespace cuda

namespace kernels::cuda {
#define GPUFEM_STUB_BLAS1(V)                                                  \
    void fill(const Executor&, std::size_t, V, V*) { no_cuda(); }             \
    void axpy(const Executor&, std::size_t, V, const V*, V*) { no_cuda(); }   \
    void xpay(const Executor&, std::size_t, const V*, V, V*) { no_cuda(); }   \
    void scale(const Executor&, std::size_t, V, V*) { no_cuda(); }            \
    double dot(const Executor&, std::size_t, const V*, const V*) { no_cuda(); }
GPUFEM_STUB_BLAS1(float)
GPUFEM_STUB_BLAS1(double)

template <typename V>
void csr_spmv(const Executor&, CsrKernel, const Csr<V>&, V, const V*, V, V*)
{
    no_cuda();
}
template void csr_spmv(const Executor&, CsrKernel, const Csr<float>&, float, const float*, float,
                       float*);
template void csr_spmv(const Executor&, CsrKernel, const Csr<double>&, double, const double*,
                       double, double*);

std::unique_ptr<IntervalTimer> make_interval_timer(const ExecPtr&) { no_cuda(); }
}  // namespace kernels::cuda

template <typename V>
std::unique_ptr<LinearOperator<V>> make_cusparse_csr_operator(Csr<V>)
{
    no_cuda();
}
template std::unique_ptr<LinearOperator<float>> make_cusparse_csr_operator(Csr<float>);
template std::unique_ptr<LinearOperator<double>> make_cusparse_csr_operator(Csr<double>);

}  // namespace gpufem
