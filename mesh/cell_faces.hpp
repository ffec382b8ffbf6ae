#pragma once
// The face adjacency of a mesh's cells: what lies across each face of each cell (the
// neighbouring cell, or the boundary and the physical group of its facet), found on an
// executor from the mesh's topology. Finite volumes gather a cell's faces from it.
#include <vector>

#include "linalg/array.hpp"
#include "linalg/executor.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// What lies across every face of every cell, on an executor. The faces of cell c are the
/// slots c * faces_per_cell + f, local face f of its shape (kernel_shapes.hpp); slots past a
/// cell's own faces (mixed meshes) hold nothing.
struct CellFaces {
    int faces_per_cell = 0;  ///< the most faces (2D: edges) of any cell
    Array<index_type> neighbour;  ///< per slot: the cell across the face, or -1 (boundary)
    /// Per slot: the index in Mesh::boundaries of the group holding the face's boundary facet
    /// (the last such group when several do), or -1: an interior face, or a boundary face in
    /// no usable group.
    Array<int> group;
    /// Per boundary group: its facets that lie between two cells (inside the domain).
    std::vector<long long> interior_facets;
    /// Per boundary group: its faces that an earlier marked group holds too (they now carry
    /// this group).
    std::vector<long long> shared_faces;
    long long interior_faces = 0;  ///< faces between two cells (each counted once)
    long long boundary_faces = 0;  ///< faces of one cell
};

/// How 3D faces are identified: by their three lowest vertex numbers (one sort of 64-bit
/// keys; automatic, when three vertex numbers fit 64 bits: below 2^21 vertices), or through
/// the numbered edges (two sorts; any size).
enum class FaceKeys { automatic, through_edges };

/// The face adjacency of mesh (any order: its cells' corner nodes) on exec, the boundary faces
/// marked with the groups `groups` (indices into Mesh::boundaries, in that order: a later one
/// takes a face two hold; null: every group in mesh order). Throws MeshSourceError naming the
/// face when more than two cells share one (not a manifold mesh). Boundary groups whose
/// facets are not faces of the cells are expected to be in Mesh::ignored_boundaries already;
/// a facet of a marked group that is not a face throws.
CellFaces cell_faces(const Mesh& mesh, const ExecPtr& exec, const std::vector<int>* groups = nullptr,
                     FaceKeys face_keys = FaceKeys::automatic);

}  // namespace gpufem
