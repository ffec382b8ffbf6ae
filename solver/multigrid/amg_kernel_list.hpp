// Kernels of smoothed-aggregation AMG.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// solver/multigrid/amg_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

// The pattern-only kernels (not templated on the value type).

/// state[i] = isolated when row i has no strong entry, undecided otherwise.
GPUFEM_KERNEL_INLINE void amg_mis_init(const Executor& exec, index_type n,
                                       const index_type* row_ptr, const std::uint8_t* strong,
                                       MisState* state) GPUFEM_KERNEL_BODY

/// columns[k] = map[columns[k]] for k < n: a matrix's columns renumbered in place.
GPUFEM_KERNEL_INLINE void amg_map_columns(const Executor& exec, std::size_t n, const index_type* map,
                                          index_type* columns) GPUFEM_KERNEL_BODY

/// columns[k] += inside when begin <= columns[k] < end, += outside otherwise (k < n): a
/// matrix's columns moved in place, a range of them one way and the rest another.
GPUFEM_KERNEL_INLINE void amg_shift_columns(const Executor& exec, std::size_t n, index_type begin, index_type end,
                                            index_type inside, index_type outside,
                                            index_type* columns) GPUFEM_KERNEL_BODY

/// columns[k] (a global number) = its local number, k < n: c - first for the owned
/// first <= c < first + owned, owned + its place in ghosts (count increasing global numbers,
/// holding every other column) otherwise.
GPUFEM_KERNEL_INLINE void amg_localize_columns(const Executor& exec, std::size_t n, index_type first, index_type owned,
                                               const index_type* ghosts, index_type count,
                                               index_type* columns) GPUFEM_KERNEL_BODY

/// The distinct values among values[0 .. n) in increasing order into out (n slots); returns
/// how many.
GPUFEM_KERNEL_INLINE index_type amg_distinct_values(const Executor& exec, std::size_t n, const index_type* values,
                                                    index_type* out) GPUFEM_KERNEL_BODY

/// out[r] = ptr[r] - ptr[0] for r <= rows: the offsets of a run of rows, from 0.
GPUFEM_KERNEL_INLINE void amg_rebase_offsets(const Executor& exec, index_type rows, const index_type* ptr,
                                             index_type* out) GPUFEM_KERNEL_BODY

/// The row offsets of the interpolation into the points of box (a finer grid level) from the
/// grid of half its boxes (grid_corner_weights): row_ptr[0 .. box.count()]; returns the entries.
GPUFEM_KERNEL_INLINE index_type amg_grid_transfer_offsets(const Executor& exec, GridBox box, int dim,
                                                          index_type* row_ptr) GPUFEM_KERNEL_BODY

/// tuple[i] = (state rank, hash(i), i) packed so that larger is preferred: selected >
/// undecided > excluded/isolated, then the hash, then the index.
GPUFEM_KERNEL_INLINE void amg_mis_tuples(const Executor& exec, index_type n, const MisState* state,
                                         std::uint64_t* tuple) GPUFEM_KERNEL_BODY

/// out[i] = max(in[i], in[j] for the strong entries (i, j)).
GPUFEM_KERNEL_INLINE void amg_mis_propagate(const Executor& exec, index_type n,
                                            const index_type* row_ptr, const index_type* col_idx,
                                            const std::uint8_t* strong, const std::uint64_t* in,
                                            std::uint64_t* out) GPUFEM_KERNEL_BODY

/// For undecided i: selected when max2[i] == own[i], excluded when max2[i] comes from a
/// selected node. Returns how many nodes are still undecided (synchronises).
GPUFEM_KERNEL_INLINE index_type amg_mis_select(const Executor& exec, index_type n, MisState* state,
                                               const std::uint64_t* own, const std::uint64_t* max2)
    GPUFEM_KERNEL_BODY

/// agg[i] = the rank of i among the selected nodes (index order) for selected i, -2 for
/// isolated i, -1 otherwise; roots[rank] = i (roots holds n entries). Returns the
/// number of selected nodes (synchronises).
GPUFEM_KERNEL_INLINE index_type amg_aggregate_roots(
    const Executor& exec, index_type n, const MisState* state, index_type* agg, index_type* roots)
    GPUFEM_KERNEL_BODY

/// out[i] = in[i] where in[i] != -1; otherwise the aggregate of the first strong
/// neighbour j (in column order) with in[j] >= 0, or -1 when there is none. Returns how
/// many nodes are still -1 (synchronises).
GPUFEM_KERNEL_INLINE index_type amg_aggregate_join(
    const Executor& exec, index_type n, const index_type* row_ptr, const index_type* col_idx,
    const std::uint8_t* strong, const index_type* in, index_type* out) GPUFEM_KERNEL_BODY

/// row_ptr of the tentative prolongator: one entry in row i when agg[i] >= 0. Returns
/// its number of entries (synchronises).
GPUFEM_KERNEL_INLINE index_type amg_tentative_pattern(
    const Executor& exec, index_type n, const index_type* agg, index_type* row_ptr)
    GPUFEM_KERNEL_BODY

/// col_idx of the tentative prolongator: agg[i] for the rows that have an entry.
GPUFEM_KERNEL_INLINE void amg_tentative_columns(const Executor& exec, index_type n,
                                                const index_type* agg, const index_type* row_ptr,
                                                index_type* col_idx) GPUFEM_KERNEL_BODY

// The kernels templated on the value type.

/// strong[k] = 1 for the off-diagonal entries (i, j) of a that amg_is_strong accepts
/// (measure above theta, or row i's or row j's strongest), 0 for the others.
template <typename V>
void amg_strength(const Executor& exec, const Csr<V>& a, const V* diag, double theta,
                  std::uint8_t* strong) GPUFEM_KERNEL_BODY

/// The row offsets of S = I - omega D^-1 A_F (A_F the filtered matrix of
/// amg_prolongator_pattern, A itself with strong null): each row's diagonal and kept entries
/// of a (a stores every diagonal entry). Returns S's entries (synchronises).
template <typename V>
index_type amg_jacobi_operator_pattern(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                                       index_type* s_ptr) GPUFEM_KERNEL_BODY

/// S's columns (a's order) and values (dinv = 1 / diag(A)), s_ptr complete: for the sparse
/// product S P0.
template <typename V>
void amg_jacobi_operator(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong, const V* dinv,
                         V omega, const index_type* s_ptr, index_type* s_col, V* s_values) GPUFEM_KERNEL_BODY

/// The row offsets of P = (I - omega D^-1 A_F) P0 for P0 the aggregates' indicator and A_F
/// the filtered matrix (A's strong entries, the weak ones added to the diagonal; A itself
/// when strong is null): row i holds the distinct aggregates among its own and its kept
/// columns' (p_ptr: rows + 1 entries). Returns P's entries, or -1 when some row meets more
/// than amg_row_aggregates_limit aggregates (cuda only; then use the sparse product).
template <typename V>
index_type amg_prolongator_pattern(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                                   const index_type* agg, index_type* p_ptr) GPUFEM_KERNEL_BODY

/// The entries of that P (p_ptr complete): column g gets [agg(i) == g] - omega dinv_i
/// sum of (A_F)_ij over the columns j with agg(j) == g; columns sorted.
template <typename V>
void amg_prolongator_fill(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                          const index_type* agg, const V* dinv, V omega, const index_type* p_ptr,
                          index_type* p_col, V* p_val) GPUFEM_KERNEL_BODY

/// p_{i, agg[i]} -= omega dinv[i] lumped[i] for every row i in an aggregate: P = (I - omega
/// D^-1 A) P0 smoothed with A's owned block turned into the smoothing with that block plus
/// diag(lumped) (a rank's couplings to other ranks' unknowns, lumped onto the diagonal).
template <typename V>
void amg_lump_into_prolongator(const Executor& exec, Csr<V>& p, const index_type* agg, const V* dinv, V omega,
                               const V* lumped) GPUFEM_KERNEL_BODY

/// One Chebyshev step: d = c_d d + c_r dinv (b - ax); x += d. With ax null the current
/// x is taken as zero: d = c_r dinv b and x = d (x is not read).
template <typename V>
void amg_chebyshev_step(const Executor& exec, index_type n, const V* b, const V* ax, const V* dinv,
                        V c_d, V c_r, V* d, V* x) GPUFEM_KERNEL_BODY

/// x[i] = hashed_unit(i) (a fixed pseudo-random start vector).
template <typename V>
void amg_start_vector(const Executor& exec, index_type n, V* x) GPUFEM_KERNEL_BODY

/// r = b - r (r holds A x on entry).
template <typename V>
void amg_residual(const Executor& exec, index_type n, const V* b, V* r) GPUFEM_KERNEL_BODY

/// A rank's coarse rows with global columns: row i of local (its columns numbered from first)
/// and of wide (global columns, none in local's range), both sorted, merged in column order
/// into columns and values from local.row_ptr[i] + wide.row_ptr[i] on; lengths[i] the row's
/// length.
template <typename V>
void amg_merge_global_rows(const Executor& exec, const Csr<V>& local, const Csr<V>& wide, index_type first,
                           index_type* lengths, index_type* columns, V* values) GPUFEM_KERNEL_BODY

/// The rows of [left | right] (right's columns shifted by shift, after left's in each row):
/// row_ptr (left.rows + 1) the sums of both blocks' offsets, columns and values each row's.
/// O: left's row offsets and the result's (64 bits: a rank's rows past 2^31 - 1 entries).
template <typename V, typename O>
void amg_join_columns(const Executor& exec, const Csr<V, O>& left, const Csr<V>& right, index_type shift,
                      O* row_ptr, index_type* columns, V* values) GPUFEM_KERNEL_BODY

/// The row offsets of top's rows followed by bottom's (top.rows + bottom.rows + 1 values):
/// top's, then bottom's past its first shifted by top's entries.
template <typename V>
void amg_stacked_offsets(const Executor& exec, const Csr<V>& top, const Csr<V>& bottom,
                         index_type* row_ptr) GPUFEM_KERNEL_BODY

/// The entries of that interpolation (offsets from amg_grid_transfer_offsets): the corners'
/// global numbers in coarse, and their weights.
template <typename V>
void amg_grid_transfer_entries(const Executor& exec, GridBox box, int dim, GridLevelView coarse,
                               const index_type* row_ptr, index_type* columns, V* values) GPUFEM_KERNEL_BODY

/// y = M x for a dense row-major n x n matrix M.
template <typename V>
void amg_dense_matvec(const Executor& exec, index_type n, const V* m, const V* x, V* y)
    GPUFEM_KERNEL_BODY

/// C = A B (columns sorted within each row, structural entries kept even when their
/// value is zero). cpu: Gustavson's row-by-row product; cuda with block_nnz 0: gpufem's
/// hash product (cuda/hash_product.cuh), or, when a row of C has more than its limit of
/// columns, as with block_nnz > 0: cuSPARSE SpGEMM over blocks of A's rows of at most
/// block_nnz entries (0: as many as the free device memory allows at
/// amg_spgemm_bytes_per_product per expected product; cuSPARSE's buffers grow with the
/// block), written straight into C: one pass for one block, two (sizes, then entries)
/// for several.
template <typename V>
Csr<V> amg_spgemm(const Executor& exec, const Csr<V>& a, const Csr<V>& b, std::size_t block_nnz)
    GPUFEM_KERNEL_BODY

/// A^T (columns sorted). cpu: counting transpose; cuda: a stable radix sort of the
/// entries by column (cuda/radix_transpose.cuh).
template <typename V>
Csr<V> amg_transpose(const Executor& exec, const Csr<V>& a) GPUFEM_KERNEL_BODY
