// The kernels of the generated grids: their coordinates and cells, and the parents of
// nested boxes.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// mesh/structured_grid.hpp. No include guard, no includes: it is read once per backend namespace.

/// Writes the coordinates (3 per lattice point; coordinates null: none) and the cells
/// of the grid on exec: box b's cells are cells_per_box patterns of nodes_per_cell
/// lattice offsets (3 ints each, from k times the box's lowest corner), `patterns` on
/// exec; cell c = b * cells_per_box + s.
GPUFEM_KERNEL_INLINE void fill_structured_mesh(const Executor& exec, const StructuredGrid& grid,
                                               const int* patterns, int cells_per_box,
                                               int nodes_per_cell, double* coordinates,
                                               index_type* cells) GPUFEM_KERNEL_BODY

/// For a grid of cells_per_box cells per box and the grid `coarse` of half its boxes
/// per unit length: child[c] = the child type of cell c (its place s in its box, then
/// which of the coarse box's 2^dim boxes it is in: s 2^dim + bits, bit a set for the
/// upper half along axis a), parent[c] = the coarse cell holding it (the coarse box's
/// cell coarse_cell_of_child[child type], a table on exec).
GPUFEM_KERNEL_INLINE void nested_box_parents(const Executor& exec, const StructuredGrid& fine,
                                             const StructuredGrid& coarse, int cells_per_box,
                                             const int* coarse_cell_of_child, index_type* parent,
                                             std::uint8_t* child) GPUFEM_KERNEL_BODY
