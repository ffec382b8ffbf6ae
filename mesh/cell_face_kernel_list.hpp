// The kernels of cell_faces: face slots, neighbours, keys and boundary groups.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// mesh/cell_face_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// second[e] = the slot other than owner[e] that holds entity e, or -1, for the `count`
/// entities (of_slot: each slot's entity). Returns an entity that three or more slots
/// hold, or -1.
GPUFEM_KERNEL_INLINE long long second_face_slots(const Executor& exec, const index_type* of_slot,
                                                 long long slots, const index_type* owner,
                                                 long long count, index_type* second)
    GPUFEM_KERNEL_BODY

/// neighbour[s] = the cell of the other slot holding s's entity, or -1; group_of_slot[s]
/// = -1 (no group yet).
GPUFEM_KERNEL_INLINE void face_neighbours(const Executor& exec, const index_type* of_slot,
                                          long long slots, const index_type* owner,
                                          const index_type* second, int faces_per_cell,
                                          index_type* neighbour, int* group_of_slot)
    GPUFEM_KERNEL_BODY

/// keys[c * num_faces + f] = face_vertex_key of local face f of cell c.
GPUFEM_KERNEL_INLINE void cell_face_vertex_keys(const Executor& exec, const LatticeMeshView& mesh,
                                                const LatticeShapeView& shape, int bits,
                                                std::uint64_t* keys) GPUFEM_KERNEL_BODY

/// keys[c * faces_per_cell + f] = shaped_face_key of slot f of cell c.
GPUFEM_KERNEL_INLINE void shaped_face_keys(const Executor& exec, const ShapedCellsView& mesh,
                                           const KernelShapes& shapes, int dim, int bits,
                                           std::uint64_t* keys) GPUFEM_KERNEL_BODY

/// group_of_slot[owner[e]] = group for the face e of every facet whose face has one
/// cell (second[e] < 0); interior = the facets whose face has two, overwritten = the
/// faces that had a group already. Returns -1, or f * 4 + failure for the first facet f
/// that is not a face of the cells.
GPUFEM_KERNEL_INLINE long long mark_boundary_faces(
    const Executor& exec, const LatticeFacetView& facets, const index_type* vertex_of_node,
    long long num_nodes, const LatticeKeys& keys, int dim, int vertex_bits, const index_type* owner,
    const index_type* second, int group, int* group_of_slot, long long& interior,
    long long& overwritten) GPUFEM_KERNEL_BODY
