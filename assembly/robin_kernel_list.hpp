// Robin-condition kernels: the facets' boundary mass matrices and loads, the cells that own
// the facets, and the matrices added into a CSR matrix or into the cells' element matrices.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/robin_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// Facet f's matrix matrices[f][i][j] = sum_q w_q |J_q| h(x_q) N_i N_j (npf * npf doubles
/// per facet, facet-major) and its load sum_q w_q |J_q| h(x_q) u_inf(x_q) N_i added into
/// rhs at its nodes (tables: the facet shape's reference element). Returns the first
/// facet * num_points + q where h is negative or not finite or u_inf is not finite
/// (matrices and rhs are then partly written), or -1. cpu: facets in order
/// (deterministic); cuda: one thread per facet, atomic adds into rhs.
template <typename V>
long long robin_facet_terms(const Executor& exec, const ExprInstruction* h,
                            const ExprInstruction* u_inf, const double* coordinates,
                            const index_type* facet_nodes, index_type num_facets,
                            const FacetTables& tables, double* matrices, V* rhs)
    GPUFEM_KERNEL_BODY

/// owner[k] = the lowest-numbered cell one of whose faces (2D: edges) has the corners
/// of facet k, for every facet the search lists (owner is filled with -1 first; a facet
/// no cell has keeps -1). cpu: cells in order; cuda: one thread per cell, atomicMin.
GPUFEM_KERNEL_INLINE void find_facet_owners(const Executor& exec,
                                            const FacetOwnerSearch& search,
                                            index_type* owner) GPUFEM_KERNEL_BODY

/// local[k * npf + i] = the place of facet k's node i in the row of its owner cell
/// (cells: npe per cell). Returns the first facet whose owner is -1 or one of whose
/// nodes is not a node of its owner, or -1.
GPUFEM_KERNEL_INLINE long long facet_places(const Executor& exec, const FacetMatrices& facets,
                                            const index_type* cells, int npe,
                                            const index_type* owner, index_type* local)
    GPUFEM_KERNEL_BODY

/// values += each facet's matrix at (node_i, node_j), each entry found in its CSR row by
/// binary search (the entries exist: the facet's nodes are one cell's). O: 32- or 64-bit
/// row offsets. cpu: facets in order; cuda: one thread per facet, atomic adds.
template <typename V, typename O>
void add_facet_matrices_csr(const Executor& exec, const FacetMatrices& facets, const O* row_ptr,
                            const index_type* col_idx, V* values) GPUFEM_KERNEL_BODY

/// Adds each facet's matrix into the element matrix of its owner cell: entry (i, j) of
/// the facet to entry (local_i, local_j) of cell c = owner[k], mapped through cell_map
/// (cell_map[c] = the cell's number among `matrices`' cells, -1: not there, skipped;
/// null: c itself). stride 0: cell-major, row-major matrices (npe * npe per cell);
/// otherwise the lma format's interleaved layout with that stride (lma_entry_index,
/// symmetric: the upper triangle only). cpu: facets in order; cuda: one thread per facet,
/// atomic adds (a cell may own several facets).
template <typename V>
void add_facet_matrices_to_cells(const Executor& exec, const FacetMatrices& facets,
                                 const index_type* owner, const index_type* local,
                                 const index_type* cell_map, int npe, index_type stride,
                                 bool symmetric, V* matrices) GPUFEM_KERNEL_BODY

/// y[node_i] += alpha sum_j m_ij x[node_j] for every facet and every row i whose node is free
/// (mask[node_i] 0; mask null: every node), the sum over the free columns j (the Robin term of
/// an operator with its Dirichlet rows and columns eliminated) or, dirichlet_columns, over the
/// fixed ones (the lifting of the Dirichlet data). cpu: facets in order; cuda: one thread per
/// facet, atomic adds.
template <typename V>
void add_facet_action(const Executor& exec, const FacetMatrices& facets, V alpha, const V* x,
                      const std::uint8_t* mask, bool dirichlet_columns, V* y) GPUFEM_KERNEL_BODY

/// diag[node_i] += m_ii for every facet (every node, fixed ones included). cpu: facets in
/// order; cuda: one thread per facet, atomic adds.
template <typename V>
void add_facet_diagonal(const Executor& exec, const FacetMatrices& facets, V* diag) GPUFEM_KERNEL_BODY

/// y[node_i] += sum_j m_ij u[node_j] for every facet (its matrix m and nodes): the Robin
/// term's product with a solution. cpu: facets in order; cuda: one thread per facet,
/// atomic adds.
template <typename V>
void add_facet_products(const Executor& exec, const FacetMatrices& facets, const V* u, double* y) GPUFEM_KERNEL_BODY
