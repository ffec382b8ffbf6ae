#pragma once
// A mesh's face adjacency on the host, walked by the conformity checks: for each face slot
// (cell c, local face f: slot c * faces_per_cell + f, as in CellFaces) the cell across it or
// -1, with the corners of each slot's face.
#include <vector>

#include "mesh/kernel_shapes.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The face adjacency of a mesh on the host (CellFaces::neighbour copied back).
struct FaceSlots {
    const Mesh* mesh = nullptr;
    int faces_per_cell = 0;
    std::vector<index_type> neighbour;  ///< per slot: the cell across, or -1
    long long interior_faces = 0;       ///< faces of two cells (each counted once)
    long long boundary_faces = 0;       ///< faces of one cell
    KernelShapes shapes = kernel_shapes();

    /// The shape of cell c.
    const KernelShape& shape(long long c) const
    {
        return shapes.of_type[static_cast<int>(mesh->type_of_cell(static_cast<index_type>(c)))];
    }
    /// Whether slot s is a face of its cell (not padding past a mixed mesh's smaller cells).
    bool is_face(long long s) const { return s % faces_per_cell < shape(s / faces_per_cell).faces; }
    /// Whether slot s is a face of one cell (on the boundary of the cells).
    bool is_boundary(long long s) const { return neighbour[static_cast<std::size_t>(s)] < 0 && is_face(s); }
    /// The nodes of slot s's face (2 to 4), returning how many.
    int face_nodes(long long s, index_type* nodes) const
    {
        const long long c = s / faces_per_cell;
        const int* local = shape(c).face_corners[s % faces_per_cell];
        const index_type* row = &mesh->cells[static_cast<std::size_t>(c) * mesh->nodes_per_cell];
        int n = 0;
        for (int k = 0; k < 4 && local[k] >= 0; ++k) nodes[n++] = row[local[k]];
        return n;
    }
};

}  // namespace gpufem
