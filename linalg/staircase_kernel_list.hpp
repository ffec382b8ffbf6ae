// Staircase kernels (cpu: the readable reference of the layout; cuda: on exec's stream).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by linalg/staircase.hpp.
// No include guard, no includes: it is read once per backend namespace.

/// Writes permuted's rows into a's slices (a's arrays and groups sized already),
/// padding included.
template <typename V>
void staircase_fill(const Executor& exec, const Csr<V>& permuted, StaircaseMatrix<V>& a)
    GPUFEM_KERNEL_BODY

/// y = alpha A x + beta y in the new order (beta == 0 ignores y, NaNs included). cpu:
/// streams ignored. cuda with streams: one kernel per group, each on its own stream,
/// forked from and joined back to exec's stream with events (so the result is ordered
/// on exec's stream like any kernel); with streams == nullptr: one launch covering
/// every group, on exec's stream.
template <typename V>
void staircase_spmv(const Executor& exec, const StaircaseMatrix<V>& a, V alpha, const V* x, V beta,
                    V* y, const StaircaseStreams* streams) GPUFEM_KERNEL_BODY
