// Stand-ins for the CUDA runtime wrappers and the cuSPARSE operators when gpufem is built
// without CUDA: every entry point throws "built without CUDA" (device_count reports 0, so
// nothing asks for them). The kernels' stand-ins come from their declarations
// (linalg/backend_kernels.hpp).
#include "linalg/backend_kernels.hpp"
#include "linalg/csr_operator.hpp"
#include "linalg/device_runtime.hpp"
#include "linalg/format_build.hpp"
#include "linalg/sellp.hpp"

namespace gpufem {
using detail::no_cuda;

namespace cuda {
bool is_built() { return false; }
int device_count() { return 0; }
std::string device_name(int) { no_cuda(); }
int multiprocessor_count(int) { no_cuda(); }
void* create_stream(int) { no_cuda(); }
void destroy_stream(void*) noexcept {}
void synchronize(void*) { no_cuda(); }
void* malloc(int, std::size_t, void*) { no_cuda(); }
void free(int, void*, void*) noexcept {}
AllocationTally allocation_tally() { return {}; }
void memcpy_to_device(void*, const void*, std::size_t, void*) { no_cuda(); }
void memcpy_to_host(void*, const void*, std::size_t, void*) { no_cuda(); }
void prepare_host_copies(int) { no_cuda(); }
void warm_memory_pool(int) { no_cuda(); }
void memcpy_device(void*, const void*, std::size_t, void*) { no_cuda(); }
void memset_zero(void*, std::size_t, void*) { no_cuda(); }
void release_pooled_memory() noexcept {}
void memory_info(int, std::size_t&, std::size_t&) { no_cuda(); }
std::string unusable_reason(int) { return "gpufem was built without CUDA"; }
std::string built_architectures() { return ""; }
std::string runtime_versions() { return ""; }
}  // namespace cuda

template <typename V>
std::unique_ptr<LinearOperator<V>> make_cusparse_csr_operator(Csr<V>)
{
    no_cuda();
}
template std::unique_ptr<LinearOperator<float>> make_cusparse_csr_operator(Csr<float>);
template std::unique_ptr<LinearOperator<double>> make_cusparse_csr_operator(Csr<double>);

template <typename V>
FormatBuild<V> build_cusparse_sell_format(Csr<V>, const CusparseSellOptions&)
{
    no_cuda();
}
template FormatBuild<float> build_cusparse_sell_format(Csr<float>, const CusparseSellOptions&);
template FormatBuild<double> build_cusparse_sell_format(Csr<double>, const CusparseSellOptions&);

}  // namespace gpufem
