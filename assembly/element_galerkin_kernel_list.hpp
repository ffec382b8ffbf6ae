// p-multigrid's coarse operators from element matrices: P^T K_e P added into the coarse
// CSR matrix.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/element_galerkin_kernels.hpp. No include guard, no includes: it is read once per
// backend namespace.

/// values[cell_to_csr[E ncl^2 + a ncl + b]] += sum_ij p[i ncl + a] k_ij p[j ncl + b]
/// for every cell e < cells and coarse pair (a, b): E the cell's coarse cell and p its
/// interpolation, npe x ncl (coarsening: e and p itself for a p-level; the parent and
/// p + child npe ncl for an h-level); k_ij = ke[e npe^2 + i npe + j], the cells' npe x
/// npe element matrices (row-major), with the rows and columns of Dirichlet nodes
/// (mask[cells[e npe + i]] != 0; mask may be null) zeroed but their diagonal kept, as
/// the system's elimination does. Summed over the cells this is R A P of the eliminated
/// matrix A. Both compute K_e P first, then P^T (K_e P) (npe ncl (npe + ncl) products
/// per cell). cpu: cells in parallel, each cell's products into a buffer, then added in
/// cell order (deterministic). cuda: a block per group of cells, K_e P in shared memory,
/// atomicAdd.
template <typename V>
void element_galerkin_add(const Executor& exec, index_type cells, int npe, int ncl, const V* ke,
                          const index_type* cell_nodes, const std::uint8_t* mask, const V* p,
                          const CellCoarsening& coarsening, const index_type* cell_to_csr,
                          V* values) GPUFEM_KERNEL_BODY

/// The same from the lma format's stored matrices (LmaArgs: interleaved, cells in their
/// own order, Dirichlet nodes as ~node in the connectivity) instead of cell-major ones.
template <typename V>
void element_galerkin_add_stored(const Executor& exec, index_type cells, const LmaArgs<V>& stored,
                                 int ncl, const V* p, const CellCoarsening& coarsening,
                                 const index_type* cell_to_csr, V* values) GPUFEM_KERNEL_BODY
