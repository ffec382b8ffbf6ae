// Element kernels. Layout: ke num_cells * npe * npe (row-major per cell), fe num_cells * npe.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/element_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// Every cell's element matrix ke and load fe. cpu: cells in parallel (OpenMP); degree
/// >= 2 by the readable loop (geometry per point, then each entry). cuda: degree 1 one
/// thread per cell; degree >= 2 a geometry kernel (one thread per cell and quadrature
/// point) then a row kernel (one thread per cell and local row), see
/// cuda/any_order_kernels.cuh.
template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe)
    GPUFEM_KERNEL_BODY

/// Computes each cell's matrix and load and adds them into CSR values (through
/// cell_to_csr, npe*npe positions per cell) and rhs. cpu: batches of cells computed in
/// parallel, each scattered sequentially (deterministic). cuda: the same kernels as
/// element_matrices, adding with atomicAdd.
template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs) GPUFEM_KERNEL_BODY

/// assemble_csr without a cell_to_csr map: each entry (i, j) finds column j in row i by
/// binary search (col_idx sorted within rows): for matrices with 64-bit row offsets
/// (past 2^31 - 1 entries, where the map would be as large as the matrix) and for the
/// cells of one type of a mesh of several. cpu: as assemble_csr. cuda: the same kernels,
/// adding with atomicAdd. The same into 32-bit (O = index_type) or 64-bit row offsets
/// (O = wide_offset_type).
template <typename V, typename O>
void assemble_csr_searched(const Executor& exec, const ElementData<V>& data, const O* row_ptr,
                           const index_type* col_idx, V* values, V* rhs) GPUFEM_KERNEL_BODY

/// Every cell's element matrix straight into the lma format's interleaved layout with
/// the cells in their own order: entry k of cell e at matrices[k stride + e], k over
/// the row-major matrix or, symmetric, its upper triangle packed by rows
/// (lma_packed_index); slots past the cells are left as they are. Loads added into rhs
/// at the cells' nodes. No cell-major copy of the matrices (100M hexahedra: 52 GB).
/// cpu: batches of cells computed in parallel, stored, loads added in cell order. cuda:
/// the element_matrices kernels with an interleaving sink, loads by atomicAdd.
template <typename V>
void element_matrices_interleaved(const Executor& exec, const ElementData<V>& data,
                                  index_type stride, bool symmetric, V* matrices, V* rhs)
    GPUFEM_KERNEL_BODY

/// residual[node_i] += (K_e u_e - f_e)_i for every cell e and each of its nodes with
/// mask[node_i] != 0 (mask null: every node): the unconstrained system's residual at those
/// nodes, u one value per node (a Dirichlet group's flux). cpu: batches of cells computed in
/// parallel, added in cell order; cuda: the element_matrices kernels with a residual sink,
/// atomic adds.
template <typename V>
void element_residual(const Executor& exec, const ElementData<V>& data, const V* u, const std::uint8_t* mask,
                      double* residual) GPUFEM_KERNEL_BODY
