// cuBLAS calls behind LibraryBlas (one library routine per operation, host pointer mode: dot
// and nrm2 return their result to the host, as a library-style solver uses them).
#include <climits>
#include <stdexcept>
#include <string>

#include <cublas_v2.h>

#include "linalg/library_blas.hpp"

namespace gpufem::kernels::cuda {
namespace {

void check(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLAS ") + what + " failed: " +
                                 cublasGetStatusString(status));
}

cublasHandle_t to_handle(void* handle) { return static_cast<cublasHandle_t>(handle); }

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
    check(cublasCreate(&handle), "cublasCreate");
    check(cublasSetStream(handle, static_cast<cudaStream_t>(exec.stream())), "cublasSetStream");
    check(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    return handle;
}

void cublas_destroy(void* handle) noexcept { cublasDestroy(to_handle(handle)); }

double cublas_dot(void* h, std::size_t n, const float* x, const float* y)
{
    float result = 0;
    check(cublasSdot(to_handle(h), to_int(n), x, 1, y, 1, &result), "Sdot");
    return result;
}
double cublas_dot(void* h, std::size_t n, const double* x, const double* y)
{
    double result = 0;
    check(cublasDdot(to_handle(h), to_int(n), x, 1, y, 1, &result), "Ddot");
    return result;
}
double cublas_nrm2(void* h, std::size_t n, const float* x)
{
    float result = 0;
    check(cublasSnrm2(to_handle(h), to_int(n), x, 1, &result), "Snrm2");
    return result;
}
double cublas_nrm2(void* h, std::size_t n, const double* x)
{
    double result = 0;
    check(cublasDnrm2(to_handle(h), to_int(n), x, 1, &result), "Dnrm2");
    return result;
}
void cublas_axpy(void* h, std::size_t n, float alpha, const float* x, float* y)
{
    check(cublasSaxpy(to_handle(h), to_int(n), &alpha, x, 1, y, 1), "Saxpy");
}
void cublas_axpy(void* h, std::size_t n, double alpha, const double* x, double* y)
{
    check(cublasDaxpy(to_handle(h), to_int(n), &alpha, x, 1, y, 1), "Daxpy");
}
void cublas_scal(void* h, std::size_t n, float alpha, float* x)
{
    check(cublasSscal(to_handle(h), to_int(n), &alpha, x, 1), "Sscal");
}
void cublas_scal(void* h, std::size_t n, double alpha, double* x)
{
    check(cublasDscal(to_handle(h), to_int(n), &alpha, x, 1), "Dscal");
}
void cublas_copy(void* h, std::size_t n, const float* x, float* y)
{
    check(cublasScopy(to_handle(h), to_int(n), x, 1, y, 1), "Scopy");
}
void cublas_copy(void* h, std::size_t n, const double* x, double* y)
{
    check(cublasDcopy(to_handle(h), to_int(n), x, 1, y, 1), "Dcopy");
}
void cublas_dgmm(void* h, std::size_t n, const float* d, const float* x, float* y)
{
    const int m = to_int(n);
    check(cublasSdgmm(to_handle(h), CUBLAS_SIDE_LEFT, m, 1, x, m, d, 1, y, m), "Sdgmm");
}
void cublas_dgmm(void* h, std::size_t n, const double* d, const double* x, double* y)
{
    const int m = to_int(n);
    check(cublasDdgmm(to_handle(h), CUBLAS_SIDE_LEFT, m, 1, x, m, d, 1, y, m), "Ddgmm");
}

}  // namespace gpufem::kernels::cuda
