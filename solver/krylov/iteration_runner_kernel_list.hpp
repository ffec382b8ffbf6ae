// The iteration runner of each backend.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// solver/krylov/iteration_runner.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// The runner of the backend (cuda: pinned mailbox, events, graphs; cpu: plain calls).
GPUFEM_KERNEL_INLINE std::unique_ptr<IterationRunner> make_iteration_runner(
    const ExecPtr& exec) GPUFEM_KERNEL_BODY
