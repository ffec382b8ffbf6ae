// The Jacobian check of the mesh before assembly.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/geometry_check_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// det J at every quadrature point of every cell of a (element kernels' geometry).
/// cpu: cells in parallel; cuda: one thread per cell (a warp per cell of 32 points or more),
/// atomics for counts and firsts.
template <typename V>
JacobianSigns jacobian_signs(const Executor& exec, const ElementArgs<V>& a) GPUFEM_KERNEL_BODY
