// The kernel that builds the CSR pattern of a finite-element matrix.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/csr_pattern.hpp. No include guard, no includes: it is read once per backend namespace.

/// The pattern of cells (nodes_per_cell nodes each; -1 entries, a mixed mesh's padding,
/// are no node) on exec, built from the cells
/// around each node (row r: the distinct nodes of the cells around node r), with no
/// global sort: peak memory about col_idx twice plus the node-to-cell lists. cpu:
/// per row, gather, std::sort and unique (twice: lengths, then columns). cuda: one warp
/// per row keeps the first occurrence of each node; CUB segmented sort of the rows.
/// Positions: binary search of column j in row i.
/// Counted once: with 32-bit offsets (CsrPattern; its cell_to_csr only with positions,
/// else empty) when its entries fit them and offsets allow, else with 64-bit offsets
/// and no positions (WideCsrPattern).
GPUFEM_KERNEL_INLINE AnyCsrPattern build_any_csr_pattern(
    const ExecPtr& exec, index_type num_nodes, const Array<index_type>& cells, int nodes_per_cell,
    PatternOffsets offsets, bool positions) GPUFEM_KERNEL_BODY
