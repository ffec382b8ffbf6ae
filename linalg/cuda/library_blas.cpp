// cuBLAS calls behind LibraryBlas (one library routine per operation, host pointer mode: dot
// and nrm2 return their result to the host, as a library-style solver uses them). cuBLAS is
// opened on first use (dlopen) rather than linked: loading it (with cuBLASLt, 600 MB) cost
// every gpufem run ~0.1 s of start-up on the H100 host, and only the cuBLAS solver variant
// uses it.
#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cublas_v2.h>

#include "linalg/cuda/shared_library.hpp"
#include "linalg/library_blas.hpp"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::SharedLibrary;

/// The cuBLAS entry points gpufem calls, from the library opened at first use.
struct CublasLibrary {
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSetStream_v2) set_stream = nullptr;
    decltype(&cublasSetPointerMode_v2) set_pointer_mode = nullptr;
    decltype(&cublasGetStatusString) status_string = nullptr;
    decltype(&cublasSdot_v2) sdot = nullptr;
    decltype(&cublasDdot_v2) ddot = nullptr;
    decltype(&cublasSnrm2_v2) snrm2 = nullptr;
    decltype(&cublasDnrm2_v2) dnrm2 = nullptr;
    decltype(&cublasSaxpy_v2) saxpy = nullptr;
    decltype(&cublasDaxpy_v2) daxpy = nullptr;
    decltype(&cublasSscal_v2) sscal = nullptr;
    decltype(&cublasDscal_v2) dscal = nullptr;
    decltype(&cublasScopy_v2) scopy = nullptr;
    decltype(&cublasDcopy_v2) dcopy = nullptr;
    decltype(&cublasSdgmm) sdgmm = nullptr;
    decltype(&cublasDdgmm) ddgmm = nullptr;
};

/// Opens libcublas.so.<major of the headers> and finds every entry point; throws naming what
/// is missing.
CublasLibrary open_cublas()
{
    const SharedLibrary library("libcublas.so." + std::to_string(CUBLAS_VER_MAJOR), "the cuBLAS solver variant");
    CublasLibrary api;
    library.find(api.create, "cublasCreate_v2");
    library.find(api.destroy, "cublasDestroy_v2");
    library.find(api.set_stream, "cublasSetStream_v2");
    library.find(api.set_pointer_mode, "cublasSetPointerMode_v2");
    library.find(api.status_string, "cublasGetStatusString");
    library.find(api.sdot, "cublasSdot_v2");
    library.find(api.ddot, "cublasDdot_v2");
    library.find(api.snrm2, "cublasSnrm2_v2");
    library.find(api.dnrm2, "cublasDnrm2_v2");
    library.find(api.saxpy, "cublasSaxpy_v2");
    library.find(api.daxpy, "cublasDaxpy_v2");
    library.find(api.sscal, "cublasSscal_v2");
    library.find(api.dscal, "cublasDscal_v2");
    library.find(api.scopy, "cublasScopy_v2");
    library.find(api.dcopy, "cublasDcopy_v2");
    library.find(api.sdgmm, "cublasSdgmm");
    library.find(api.ddgmm, "cublasDdgmm");
    return api;  // the library stays open for the process
}

/// The library, opened once (a failure is reported again on every use).
const CublasLibrary& cublas() { return gpufem::cuda::opened_once<CublasLibrary, open_cublas>(); }

void check(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLAS ") + what + " failed: " + cublas().status_string(status));
}

cublasHandle_t to_handle(void* handle) { return static_cast<cublasHandle_t>(handle); }

/// for_float or for_double, as V is: the cuBLAS routine (or its name) for V.
template <typename V, typename F, typename D>
auto by_type(F for_float, D for_double)
{
    static_assert(std::is_same_v<V, float> || std::is_same_v<V, double>, "cuBLAS: float or double");
    if constexpr (std::is_same_v<V, float>)
        return for_float;
    else
        return for_double;
}

int to_int(std::size_t n)
{
    if (n > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument("cuBLAS: vector longer than INT_MAX");
    return static_cast<int>(n);
}

}  // namespace

void* cublas_create(const Executor& exec)
{
    cublasHandle_t handle = nullptr;
    check(cublas().create(&handle), "cublasCreate");
    check(cublas().set_stream(handle, static_cast<cudaStream_t>(exec.stream())), "cublasSetStream");
    check(cublas().set_pointer_mode(handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    return handle;
}

void cublas_destroy(void* handle) noexcept { cublas().destroy(to_handle(handle)); }

template <typename V>
double cublas_dot(void* h, std::size_t n, const V* x, const V* y)
{
    V result = 0;
    check(by_type<V>(cublas().sdot, cublas().ddot)(to_handle(h), to_int(n), x, 1, y, 1, &result),
          by_type<V>("Sdot", "Ddot"));
    return result;
}

template <typename V>
double cublas_nrm2(void* h, std::size_t n, const V* x)
{
    V result = 0;
    check(by_type<V>(cublas().snrm2, cublas().dnrm2)(to_handle(h), to_int(n), x, 1, &result),
          by_type<V>("Snrm2", "Dnrm2"));
    return result;
}

template <typename V>
void cublas_axpy(void* h, std::size_t n, V alpha, const V* x, V* y)
{
    check(by_type<V>(cublas().saxpy, cublas().daxpy)(to_handle(h), to_int(n), &alpha, x, 1, y, 1),
          by_type<V>("Saxpy", "Daxpy"));
}

template <typename V>
void cublas_scal(void* h, std::size_t n, V alpha, V* x)
{
    check(by_type<V>(cublas().sscal, cublas().dscal)(to_handle(h), to_int(n), &alpha, x, 1),
          by_type<V>("Sscal", "Dscal"));
}

template <typename V>
void cublas_copy(void* h, std::size_t n, const V* x, V* y)
{
    check(by_type<V>(cublas().scopy, cublas().dcopy)(to_handle(h), to_int(n), x, 1, y, 1),
          by_type<V>("Scopy", "Dcopy"));
}

template <typename V>
void cublas_dgmm(void* h, std::size_t n, const V* d, const V* x, V* y)
{
    const int m = to_int(n);
    check(by_type<V>(cublas().sdgmm, cublas().ddgmm)(to_handle(h), CUBLAS_SIDE_LEFT, m, 1, x, m, d, 1, y, m),
          by_type<V>("Sdgmm", "Ddgmm"));
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    cublas_dot, cublas_nrm2, cublas_axpy, cublas_scal, cublas_copy, cublas_dgmm)

}  // namespace gpufem::kernels::cuda
