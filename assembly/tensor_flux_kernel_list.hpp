// Kernels of the flux pass by sum factorisation, see assembly/tensor_flux_kernels.hpp.
// A kernel list (linalg/backend_kernels.hpp). No include guard, no includes: it is read once
// per backend namespace. cuda: the same contracts, asynchronous on the executor's stream.

/// cell_flux_integrals (assembly/flux_kernel_list.hpp) of a's quadrilaterals or hexahedra (a's
/// points the rule's, mesh order: written at m = e), and with mask not null each cell's
/// K_e u_e - f_e (without the natural conditions) added into residual at its nodes with
/// mask[node] != 0.
/// cpu: cells in parallel in fixed chunks, the residual added in cell order (the same sums on
/// any thread count); cuda: a thread per point, a few cells a block, the contractions through
/// shared memory, block reductions for the cell sums, atomics into residual.
template <typename V>
void tensor_cell_fluxes(const Executor& exec, const ElementArgs<V>& a, const TensorFluxArgs<V>& t, const V* u,
                        const std::uint8_t* mask, long long stride, double* mean_flux, double* integrals,
                        double* residual) GPUFEM_KERNEL_BODY

/// node_flux_sums (assembly/flux_kernel_list.hpp) of a's quadrilaterals or hexahedra, a's
/// points the cell's nodes (t's tables at the nodes, rule_of_lex = gmsh_of_lex). cpu: cells
/// in parallel in fixed chunks, added in cell order; cuda: a thread per node, atomics.
template <typename V>
void tensor_node_fluxes(const Executor& exec, const ElementArgs<V>& a, const TensorFluxArgs<V>& t, const V* u,
                        double* sum, double* weight) GPUFEM_KERNEL_BODY
