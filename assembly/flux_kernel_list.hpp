// Flux kernels: the flux -kappa grad u_h of a finite-element solution per cell and at the
// nodes, and the cells' integrals of u_h, f, c u_h and b . grad u_h.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/flux_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// For each cell c, from data's quadrature points (kappa, f, c and b there; u one value
/// per node): mean_flux[3 c ..] = the mean over the cell of -kappa grad u_h (the third
/// component 0 in 2D), and integrals[5 c ..] = its volume and the integrals of u_h, f,
/// c u_h and b . grad u_h. cpu: cells in parallel; cuda: one thread per cell.
template <typename V>
void cell_flux_integrals(const Executor& exec, const ElementData<V>& data, const V* u, double* mean_flux,
                         double* integrals) GPUFEM_KERNEL_BODY

/// For each cell and each of its nodes k (data's points are the reference nodes, kappa
/// evaluated there): -kappa grad u_h of the cell at node k times w_k = |det J| there added
/// into sum[3 node ..], and w_k into weight[node]. cpu: cells in order; cuda: one thread
/// per cell, atomic adds.
template <typename V>
void node_flux_sums(const Executor& exec, const ElementData<V>& data, const V* u, double* sum, double* weight)
    GPUFEM_KERNEL_BODY
