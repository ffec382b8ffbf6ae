// The interval timer of each backend.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// linalg/interval_timer.hpp. No include guard, no includes: it is read once per backend namespace.

/// A timer on exec: cpu a steady clock, cuda events in exec's stream.
GPUFEM_KERNEL_INLINE std::unique_ptr<IntervalTimer> make_interval_timer(
    const ExecPtr& exec) GPUFEM_KERNEL_BODY
