// BLAS-1 kernels on raw arrays of float or double.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// linalg/blas1_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// x[i] = value
template <typename V>
void fill(const Executor& exec, std::size_t n, V value, V* x) GPUFEM_KERNEL_BODY

/// y += alpha x
template <typename V>
void axpy(const Executor& exec, std::size_t n, V alpha, const V* x, V* y) GPUFEM_KERNEL_BODY

/// y = x + beta y
template <typename V>
void xpay(const Executor& exec, std::size_t n, const V* x, V beta, V* y) GPUFEM_KERNEL_BODY

/// x = alpha x
template <typename V>
void scale(const Executor& exec, std::size_t n, V alpha, V* x) GPUFEM_KERNEL_BODY

/// x . y, accumulated in double
template <typename V>
double dot(const Executor& exec, std::size_t n, const V* x, const V* y) GPUFEM_KERNEL_BODY

/// max |x[i]| (0 for n = 0); NaN when an entry is NaN, infinity when one is infinite
template <typename V>
double max_abs(const Executor& exec, std::size_t n, const V* x) GPUFEM_KERNEL_BODY

/// min |x[i]| (infinity for n = 0); NaN when an entry is NaN
template <typename V>
double min_abs(const Executor& exec, std::size_t n, const V* x) GPUFEM_KERNEL_BODY
