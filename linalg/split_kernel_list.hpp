// The split of a rank's owned rows into the owned columns and the ghost columns
// (linalg/distributed_operator.hpp's split_owned_columns), on the rows' executor.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// linalg/split_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// The row offsets of both blocks: local_ptr over the entries of columns < owned (the owned
/// ones, with a's offset type O: past 2^31 - 1 entries they need 64 bits), nonlocal_ptr over
/// the others (the few along the part's boundary: 32-bit); each a.rows + 1 long, in exec's
/// memory.
template <typename V, typename O>
void split_row_offsets(const Executor& exec, const Csr<V, O>& a, index_type owned, O* local_ptr,
                       index_type* nonlocal_ptr) GPUFEM_KERNEL_BODY

/// Copies each row's entries into its block (in their order within the row), the ghost
/// columns renumbered from 0 (column - owned); offsets from split_row_offsets.
template <typename V, typename O>
void split_rows(const Executor& exec, const Csr<V, O>& a, index_type owned, const O* local_ptr,
                index_type* local_col, V* local_val, const index_type* nonlocal_ptr, index_type* nonlocal_col,
                V* nonlocal_val) GPUFEM_KERNEL_BODY

/// The rows of a that hold entries, in row order: at[k] the row, end[k] its end offset in a
/// (at and end have room for a.rows entries). Returns how many.
template <typename V>
index_type nonempty_rows(const Executor& exec, const Csr<V>& a, index_type* at, index_type* end) GPUFEM_KERNEL_BODY

/// y[rows[k]] += alpha (a x)[k] for every row k of a: a block kept for the rows that hold
/// entries only (rows[k]: the owned row of a's row k; distinct), x its ghost values.
template <typename V>
void add_compressed_rows(const Executor& exec, const Csr<V>& a, const index_type* rows, V alpha, const V* x,
                         V* y) GPUFEM_KERNEL_BODY

/// out[i] = 1 where mask[i] is set, 0 elsewhere, for i < n (a mask sent as values).
template <typename V>
void mask_to_values(const Executor& exec, index_type n, const std::uint8_t* mask, V* out) GPUFEM_KERNEL_BODY

/// mask[i] = 1 where in[i] is not zero, 0 elsewhere, for i < n (values received as a mask).
template <typename V>
void values_to_mask(const Executor& exec, index_type n, const V* in, std::uint8_t* mask) GPUFEM_KERNEL_BODY

// The boundary cells of a rank's matrix-free operator (cells with ghost nodes) read and write
// a staging vector in the part's numbering (owned, then ghosts).

/// to[at[k]] = from[at[k]] for k < n (the owned values the boundary cells read), and
/// to[owned + g] = ghosts[g] for g < ghost_count.
template <typename V>
void stage_boundary_values(const Executor& exec, index_type n, const index_type* at, const V* from,
                           index_type owned, index_type ghost_count, const V* ghosts, V* to) GPUFEM_KERNEL_BODY

/// y[at[k]] += staged[at[k]] for k < n (at distinct, all below owned), then those entries and
/// staged[owned .. owned + ghost_count) set to zero: the staging is clean for the next product.
template <typename V>
void add_boundary_rows(const Executor& exec, index_type n, const index_type* at, V* staged, index_type owned,
                       index_type ghost_count, V* y) GPUFEM_KERNEL_BODY
