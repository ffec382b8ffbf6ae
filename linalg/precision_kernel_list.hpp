// Conversions between double and single precision, for a preconditioner that works in float
// inside a solver in double.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// linalg/precision.hpp. No include guard, no includes: it is read once per backend namespace.

/// y[i] = x[i] rounded to the nearest float, for i < n.
GPUFEM_KERNEL_INLINE void round_to_float(const Executor& exec, std::size_t n, const double* x, float* y)
    GPUFEM_KERNEL_BODY

/// y[i] = x[i] (exact), for i < n.
GPUFEM_KERNEL_INLINE void widen_to_double(const Executor& exec, std::size_t n, const float* x, double* y)
    GPUFEM_KERNEL_BODY
