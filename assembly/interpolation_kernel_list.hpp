// p-multigrid's transfers: the coarse lattice numbered (not templated), then the
// interpolation's entries.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/interpolation_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// column[n] = the number of mesh node n among the nodes on some cell's degree-c
/// positions (coarse_local_node), in node order, or -1; returns how many there are.
GPUFEM_KERNEL_INLINE long long number_coarse_nodes(
    const Executor& exec, const CoarseLatticeView& view, index_type* column) GPUFEM_KERNEL_BODY

/// column_nodes[column[n]] = n for every numbered mesh node n.
GPUFEM_KERNEL_INLINE void list_coarse_nodes(const Executor& exec, const index_type* column,
                                            long long num_nodes, index_type* column_nodes)
    GPUFEM_KERNEL_BODY

/// coarse_cells[e ncl + m] = column[cells[e npc + coarse_local_node(e, m)]], -1 where that is
/// -1 (a smaller type's padding).
GPUFEM_KERNEL_INLINE void coarse_cell_nodes(const Executor& exec, const CoarseLatticeView& view,
                                            const index_type* column, index_type* coarse_cells)
    GPUFEM_KERNEL_BODY

/// owner[n] = the smallest slot e npc + j with cells[e npc + j] = n, or -1 for a node
/// in no cell (padding slots, -1, hold no node).
GPUFEM_KERNEL_INLINE void node_owner_slots(const Executor& exec, const CoarseLatticeView& view,
                                           long long* owner) GPUFEM_KERNEL_BODY

/// ptr[0] = 0, ptr[i + 1] = ptr[i] + the length of row i: the owner's local row of
/// row_nodes[i] (row_nodes null: i itself), 0 for a node in no cell; returns ptr[rows]
/// (the caller makes sure it fits index_type).
GPUFEM_KERNEL_INLINE long long interpolation_row_offsets(
    const Executor& exec, const CoarseLatticeView& view, const long long* owner,
    const index_type* row_nodes, long long rows, const int* row_length, index_type* ptr)
    GPUFEM_KERNEL_BODY

/// The entries of the rows laid out by interpolation_row_offsets: row i's weights above
/// 1e-14 from its owner's local row, columns column[cells[owner cell, coarse_local_node(m)]]
/// (h-coarsening: coarse_cells[parent of the owner cell, m]; column unused), sorted.
template <typename V>
void interpolation_entries(const Executor& exec, const CoarseLatticeView& view,
                           const ReferenceInterpolationView& reference, const long long* owner,
                           const index_type* row_nodes, long long rows, const index_type* column,
                           const index_type* ptr, index_type* col, V* val) GPUFEM_KERNEL_BODY
