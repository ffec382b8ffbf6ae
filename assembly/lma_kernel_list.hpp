// Kernels of the LMA (local matrix approach) operator.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/lma_kernels.hpp. No include guard, no includes: it is read once per backend namespace.

// The LMA kernels. cuda: the same contracts, asynchronous on the executor's stream;
// lma_apply_cells launches the kernel named (see LmaKernel), the others use one thread per
// slot entry, cell, (cell, row) or node.

/// out (interleaved, stride slots) from cell-major ke (npe * npe per cell, row-major):
/// slot p takes cell order[p], or zeros where order[p] < 0 (padding); order null: cell
/// p for p < cells. Symmetric: only i <= j kept.
template <typename V>
void lma_interleave(const Executor& exec, index_type stride, int npe, bool symmetric,
                    const index_type* order, index_type cells, const V* ke, V* out)
    GPUFEM_KERNEL_BODY

/// diag[node] += K_e(i, i) for every cell at positions [begin, end) and local i with
/// that node, Dirichlet nodes included (the assembled diagonal, once diag starts at
/// zero).
template <typename V>
void lma_diagonal(const Executor& exec, const LmaArgs<V>& a, index_type begin, index_type end,
                  V* diag) GPUFEM_KERNEL_BODY

/// y = beta y (beta == 0: y = 0 whatever it held), then y_d += alpha diag_d x_d on the
/// dirichlet_count Dirichlet nodes d listed in dirichlet (their rows are a_dd e_d).
template <typename V>
void lma_prepare(const Executor& exec, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const index_type* dirichlet, index_type dirichlet_count, const V* diag)
    GPUFEM_KERNEL_BODY

/// Prepares the apply kernel for a's npe and storage (CUDA: raises its shared-memory
/// limit where it needs more than 48 KB; throws if the device cannot give it). Called
/// once when the operator is built, since an apply may be captured in a CUDA graph.
/// CPU: nothing.
template <typename V>
void lma_configure(const Executor& exec, const LmaArgs<V>& a, LmaKernel kernel) GPUFEM_KERNEL_BODY

/// For the cells at positions [begin, end): y += alpha P^T K_e P (x with Dirichlet
/// nodes zeroed), Dirichlet rows skipped. atomic: cells may share nodes (sequential on
/// the CPU); otherwise they must not (the colour variant: cells in parallel). kernel is
/// resolved (not automatic); the CPU ignores it.
template <typename V>
void lma_apply_cells(const Executor& exec, const LmaArgs<V>& a, index_type begin, index_type end,
                     V alpha, const V* x, V* y, bool atomic, LmaKernel kernel) GPUFEM_KERNEL_BODY

/// Dirichlet lifting for the cells at [begin, end): rhs[n_i] -= sum over Dirichlet
/// local j of K_e(i, j) g[node j], for the free rows i (the eliminated columns moved to
/// the right side).
template <typename V>
void lma_dirichlet_lift(const Executor& exec, const LmaArgs<V>& a, index_type begin, index_type end,
                        const V* g, V* rhs) GPUFEM_KERNEL_BODY

/// rhs_i = diag_i g_i on masked rows (the eliminated rows' right side), others
/// unchanged.
template <typename V>
void lma_dirichlet_rows(const Executor& exec, index_type num_nodes, const std::uint8_t* mask,
                        const V* diag, const V* g, V* rhs) GPUFEM_KERNEL_BODY

/// rhs[cells[e * npe + i]] += fe[e * npe + i] for all num_cells cells (cell-major
/// element loads scattered; sequential on the CPU, atomics on CUDA).
template <typename V>
void lma_scatter_loads(const Executor& exec, index_type num_cells, int npe, const index_type* cells,
                       const V* fe, V* rhs) GPUFEM_KERNEL_BODY

// The LMA kernels on the connectivity only.

/// out[i stride + p] = node i of cell order[p] (cells: npe nodes per cell, cell-major),
/// stored as ~node where mask[node] != 0 (mask may be null: no Dirichlet nodes), and -1
/// where order[p] < 0 (padding); order null: cell p for p < num_cells. All arrays on
/// exec.
GPUFEM_KERNEL_INLINE void lma_interleave_connectivity(
    const Executor& exec, index_type stride, int npe, const index_type* order, index_type num_cells,
    const index_type* cells, const std::uint8_t* mask, index_type* out) GPUFEM_KERNEL_BODY
