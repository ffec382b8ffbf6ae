// Flux kernels: the flux -kappa grad u_h of a finite-element solution per cell and at the
// nodes, and the cells' integrals of u_h, f, c u_h and b . grad u_h.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/flux_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// For each cell e of data, from its quadrature points (kappa, f, c and b there; u one value
/// per node), written at m = cell_of[e] (cell_of null: m = e) in columns of `stride` values:
/// mean_flux[d stride + m] = the mean over the cell of component d of -kappa grad u_h (0 for
/// d = 2 in 2D), and integrals[k stride + m] = its volume and the integrals of u_h, f, c u_h
/// and b . grad u_h (k = 0..4). cpu: cells in parallel; cuda: a warp per cell over its
/// points, one thread per cell for cells of at most 8 points.
template <typename V>
void cell_flux_integrals(const Executor& exec, const ElementData<V>& data, const V* u, const index_type* cell_of,
                         long long stride, double* mean_flux, double* integrals) GPUFEM_KERNEL_BODY

/// The sum of values[c] over the n cells c with region[c] == tag (region null: over all n),
/// in an order fixed by n alone (the same sum on every run).
GPUFEM_KERNEL_INLINE double region_sum(const Executor& exec, long long n, const int* region, int tag, const double* values)
    GPUFEM_KERNEL_BODY

/// For each cell and each of its nodes k (data's points are the reference nodes, kappa
/// evaluated there): -kappa grad u_h of the cell at node k times w_k = |det J| there added
/// into sum[3 node ..], and w_k into weight[node]. cpu: cells in order; cuda: a warp per cell
/// over its nodes (one thread per cell for cells of at most 8 nodes), atomic adds.
template <typename V>
void node_flux_sums(const Executor& exec, const ElementData<V>& data, const V* u, double* sum, double* weight)
    GPUFEM_KERNEL_BODY

/// For each of the count facet nodes (negative entries skipped): owner[node] = group and
/// mask[node] = 1. Called group after group, a node several groups fix is the last one's.
GPUFEM_KERNEL_INLINE void mark_dirichlet_group(const Executor& exec, const index_type* nodes, long long count,
                                               int group, int* owner, std::uint8_t* mask) GPUFEM_KERNEL_BODY

/// residual[i] -= load[i] for the n nodes (the residual without the natural conditions' loads).
template <typename V>
void subtract_load(const Executor& exec, long long n, const V* load, double* residual) GPUFEM_KERNEL_BODY

/// The flux at the n nodes from node_flux_sums: columns[d n + i] = sum[3 i + d] / weight[i]
/// (0 where the weight is 0) for the dim components d.
GPUFEM_KERNEL_INLINE void node_flux_means(const Executor& exec, long long n, int dim, const double* sum,
                                          const double* weight, double* columns) GPUFEM_KERNEL_BODY
