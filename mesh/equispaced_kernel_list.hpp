// The GLL-to-equispaced conversion's kernels, see mesh/equispaced_kernels.hpp.
// A kernel list (linalg/backend_kernels.hpp). No include guard, no includes: it is read once
// per backend namespace. cuda: the same contracts, asynchronous on the executor's stream.

/// owner[n] = the lowest-numbered cell holding node n (-1 for a node no cell holds), for the
/// num_nodes nodes of the cells. cpu and cuda: an atomic minimum over the cells' entries.
GPUFEM_KERNEL_INLINE void first_cells_of_nodes(const Executor& exec, const index_type* cells, int nodes_per_cell,
                                               long long num_cells, long long num_nodes, index_type* owner)
    GPUFEM_KERNEL_BODY

/// out[n stride + s] = the GLL interpolant of in (component s < components) in node n's first
/// cell (a.owner) at n's equispaced point, by contractions along each axis with a.line; a node
/// no cell holds keeps its value. cpu: cells in parallel; cuda: a block per cell, a thread
/// per node, the contractions through shared memory.
template <typename T>
void equispaced_values(const Executor& exec, const EquispacedArgs& a, const T* in, T* out, int stride,
                       int components) GPUFEM_KERNEL_BODY
