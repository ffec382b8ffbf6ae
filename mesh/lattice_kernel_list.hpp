// The lattice kernels: vertices and entities numbered, lattice points filled, cells refined.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// mesh/lattice_kernels.hpp. No include guard, no includes: it is read once per backend namespace.

/// vertex_of_node[n] = the number of node n among the corner nodes of the cells (the
/// first `corners` of each), in node order, or -1 for other nodes; returns the count.
GPUFEM_KERNEL_INLINE long long number_vertices(const Executor& exec, const index_type* cells,
                                               long long num_cells, int nodes_per_cell, int corners,
                                               long long num_nodes, index_type* vertex_of_node)
    GPUFEM_KERNEL_BODY

/// keys[edge_slot(c, e)] = edge_key of local edge e of the block's cell c.
GPUFEM_KERNEL_INLINE void lattice_edge_keys(const Executor& exec, const LatticeMeshView& mesh,
                                            const LatticeShapeView& shape, std::uint64_t* keys)
    GPUFEM_KERNEL_BODY

/// keys[face_slot(c, f)] = face_key of local face f of the block's cell c
/// (entities.cell_edges set).
GPUFEM_KERNEL_INLINE void lattice_face_keys(const Executor& exec, const LatticeMeshView& mesh,
                                            const LatticeShapeView& shape,
                                            const LatticeEntities& entities, std::uint64_t* keys)
    GPUFEM_KERNEL_BODY

/// keys[first_cell + c] = the lowest vertex of the block's cell c << 32 | first_cell + c.
GPUFEM_KERNEL_INLINE void lattice_cell_keys(const Executor& exec, const LatticeMeshView& mesh,
                                            int corners, std::uint64_t* keys) GPUFEM_KERNEL_BODY

/// For every vertex v (and v = V): first_edge, first_face and first_cell (the first of
/// the sorted keys whose lower/lowest vertex is v or above; cell_keys may be null:
/// first_cell 0), then vertex_start = the exclusive sums of each vertex's block size (1
/// + its edges (m - 1) + its faces' and its cells' points, vertex_block_size). Returns
/// the total.
GPUFEM_KERNEL_INLINE long long lattice_vertex_blocks(
    const Executor& exec, long long vertices, const std::uint64_t* edge_keys, long long edges,
    const std::uint64_t* face_keys, long long faces, const std::uint64_t* cell_keys,
    long long cells, int m, const LatticePointCounts& counts, index_type* first_edge,
    index_type* first_face, index_type* first_cell, long long* vertex_start) GPUFEM_KERNEL_BODY

/// Numbers the distinct keys (below 2^key_bits) in increasing order:
/// entity_of_slot[i] = the number of keys[i]; unique_keys[j] the j-th key, owner[j] the
/// first slot that holds it. Returns the number of distinct keys.
GPUFEM_KERNEL_INLINE long long number_entities(const Executor& exec, const std::uint64_t* keys,
                                               long long count, int key_bits,
                                               index_type* entity_of_slot,
                                               std::uint64_t* unique_keys, index_type* owner)
    GPUFEM_KERNEL_BODY

/// offsets[i] = the sum of points(keys[j]) over j < i, for i = 0..count (sorted
/// distinct keys of faces or cells: LatticeEntities::face_offset, cell_offset).
GPUFEM_KERNEL_INLINE void lattice_point_offsets(const Executor& exec, const std::uint64_t* keys,
                                                long long count, const LatticeKeyPoints& per_key,
                                                long long* offsets) GPUFEM_KERNEL_BODY

/// lattice_cells[c * num_points + q] = lattice_point_number(c, q); coordinates (3 per
/// point) of every point: vertices copied from their node, the others as
/// sum_j basis[q * map.nodes_per_cell + j] x_j over the nodes of the cell's map, written by
/// the first cell holding them (edge_owner / face_owner: the owning slot).
GPUFEM_KERNEL_INLINE void fill_lattice(const Executor& exec, const LatticeMeshView& mesh,
                                       int corners, const LatticeShapeView& shape,
                                       const LatticeEntities& entities, const double* basis,
                                       const LatticeMapView& map,
                                       const double* node_coordinates, long long num_nodes,
                                       const index_type* edge_owner, const index_type* face_owner,
                                       index_type* lattice_cells, double* coordinates)
    GPUFEM_KERNEL_BODY

/// out[f * num_points + q] = facet_point_number(f, q) for every facet; returns -1, or
/// the first failing facet f and its failure as f * 4 + failure.
GPUFEM_KERNEL_INLINE long long fill_facet_lattice(const Executor& exec,
                                                  const LatticeFacetView& facets,
                                                  const index_type* vertex_of_node,
                                                  long long num_nodes,
                                                  const LatticeShapeView& shape,
                                                  const LatticeEntities& entities,
                                                  const LatticeKeys& keys, index_type* out)
    GPUFEM_KERNEL_BODY

/// cells[(c * children + s) * nodes_per_child + q] =
/// lattice_cells[c * points_per_cell + pattern[(p * children + s) * nodes_per_child +
/// q]], p the pattern of cell c: chosen[c] when given, else with diagonals (2 lattice points
/// per pattern) the one whose diagonal is shortest (the first on ties), else 0.
GPUFEM_KERNEL_INLINE void fill_children(const Executor& exec, const index_type* lattice_cells,
                                        long long num_cells, int points_per_cell,
                                        const int* pattern, int patterns, int children,
                                        int nodes_per_child, const int* diagonals,
                                        const double* coordinates, const std::uint8_t* chosen,
                                        index_type* cells)
    GPUFEM_KERNEL_BODY

/// choice[c] = the pattern fill_children takes for cell c.
GPUFEM_KERNEL_INLINE void refinement_choices(const Executor& exec, const index_type* lattice_cells,
                                             long long num_cells, int points_per_cell, int patterns,
                                             const int* diagonals, const double* coordinates,
                                             std::uint8_t* choice) GPUFEM_KERNEL_BODY

/// Row i of `from` (row from_rows[i], or i when null; from_stride entries a row) into row
/// to_rows[i] (or i) of `to`: its first `width` entries, then -1 up to to_stride (a
/// mixed mesh's padding), for i < rows: the gathers and scatters of a mesh's blocks.
GPUFEM_KERNEL_INLINE void copy_rows(const Executor& exec, const index_type* from, int from_stride,
                                    const index_type* from_rows, index_type* to, int to_stride,
                                    const index_type* to_rows, long long rows, int width)
    GPUFEM_KERNEL_BODY

/// For the num_cells children of a refinement (children per parent, child s of parent
/// q is cell q children + s): parent[c] = q and child[c] = pattern[q] children + s.
GPUFEM_KERNEL_INLINE void refinement_children(const Executor& exec, long long num_cells,
                                              int children, const std::uint8_t* pattern,
                                              index_type* parent, std::uint8_t* child)
    GPUFEM_KERNEL_BODY
