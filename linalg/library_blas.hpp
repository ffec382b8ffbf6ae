#pragma once
// LibraryBlas: vector operations as library calls, one call per operation (cuBLAS on the GPU,
// plain loops on the CPU). The reference Krylov solvers are written with it, as in Anzt et al.
// 2015, Figure 1 (right); the merged solvers replace it with fused kernels.
#include <memory>

#include "linalg/array.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// One library call per BLAS-1 operation on vectors of one executor. On CUDA every call is a
/// cuBLAS routine on the executor's stream; dot and nrm2 return to the host (they wait).
template <typename V>
class LibraryBlas {
public:
    explicit LibraryBlas(ExecPtr exec);
    ~LibraryBlas();
    LibraryBlas(const LibraryBlas&) = delete;
    LibraryBlas& operator=(const LibraryBlas&) = delete;

    /// x . y (cublas<t>dot)
    double dot(const Array<V>& x, const Array<V>& y) const;
    /// ||x||_2 (cublas<t>nrm2)
    double nrm2(const Array<V>& x) const;
    /// y += alpha x (cublas<t>axpy)
    void axpy(V alpha, const Array<V>& x, Array<V>& y) const;
    /// x = alpha x (cublas<t>scal)
    void scal(V alpha, Array<V>& x) const;
    /// y = x (cublas<t>copy)
    void copy(const Array<V>& x, Array<V>& y) const;
    /// y = diag(d) x, elementwise (cublas<t>dgmm on an n x 1 matrix)
    void diag_multiply(const Array<V>& d, const Array<V>& x, Array<V>& y) const;

private:
    ExecPtr exec_;
    void* handle_ = nullptr;  ///< cublasHandle_t on CUDA
};

namespace kernels::cuda {
/// A cuBLAS handle bound to exec's stream (destroy with cublas_destroy).
GPUFEM_CUDA_INLINE void* cublas_create(const Executor& exec) GPUFEM_CUDA_BODY
/// Releases a handle from cublas_create.
GPUFEM_CUDA_INLINE void cublas_destroy(void* handle) noexcept GPUFEM_CUDA_NOTHROW_BODY

// cuBLAS calls (kernels::cuda only), for float and double: each calls cuBLAS's routine for
// V. Each runs on the handle's stream; dot and nrm2 return to the host.

/// x . y (cublas<t>dot), returned in double
template <typename V>
double cublas_dot(void* handle, std::size_t n, const V* x, const V* y) GPUFEM_CUDA_BODY
/// ||x||_2 (cublas<t>nrm2)
template <typename V>
double cublas_nrm2(void* handle, std::size_t n, const V* x) GPUFEM_CUDA_BODY
/// y += alpha x (cublas<t>axpy)
template <typename V>
void cublas_axpy(void* handle, std::size_t n, V alpha, const V* x, V* y) GPUFEM_CUDA_BODY
/// x = alpha x (cublas<t>scal)
template <typename V>
void cublas_scal(void* handle, std::size_t n, V alpha, V* x) GPUFEM_CUDA_BODY
/// y = x (cublas<t>copy)
template <typename V>
void cublas_copy(void* handle, std::size_t n, const V* x, V* y) GPUFEM_CUDA_BODY
/// y = diag(d) x (cublas<t>dgmm on an n x 1 matrix)
template <typename V>
void cublas_dgmm(void* handle, std::size_t n, const V* d, const V* x, V* y) GPUFEM_CUDA_BODY
}  // namespace kernels::cuda

namespace kernels::cpu {
/// y[i] = d[i] x[i]: the plain-loop stand-in for cublas<t>dgmm, a library-call kernel only
/// the CPU has.
template <typename V>
void diag_multiply(const Executor& exec, std::size_t n, const V* d, const V* x, V* y);
}  // namespace kernels::cpu

}  // namespace gpufem
