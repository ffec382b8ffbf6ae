#pragma once
// The first-order cell shapes as corners and faces in a plain struct that kernels take by
// value, for code that walks a cell's faces on the host or the device (the face adjacency,
// finite volumes), whatever the mesh's cell types. Copied from the shapes' tables
// (mesh/shapes/cell_shape.hpp).
#include <cstdint>

#include "linalg/host_device.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// A first-order cell's corners and faces (3D: polygons; 2D: its edges).
struct KernelShape {
    int corners = 0;  ///< vertices (3 to 8)
    int faces = 0;    ///< faces or edges (3 to 6)
    /// Local corners of each face in cyclic order, -1 after them (edges: 2; triangles: 3). Gmsh's
    /// node order; the orientation is not fixed (users orient by the cell centre).
    int face_corners[6][4] = {};
};

/// Every shape a mesh may hold, indexed by ElementType (passed by value to kernels).
struct KernelShapes {
    KernelShape of_type[element_type_count];
};

/// The corners and sides of every cell type of dimension 2 or 3 (lines: none): the faces of a
/// 3D shape, the edges of a 2D one.
KernelShapes kernel_shapes();

/// The shape of cell c: its own type's (types: each cell's ElementType number, or null when
/// every cell is `type`).
GPUFEM_HOST_DEVICE inline const KernelShape& shape_of_cell(const KernelShapes& shapes, const std::uint8_t* types,
                                                        ElementType type, long long c)
{
    return shapes.of_type[types ? types[c] : static_cast<int>(type)];
}

/// The most faces of any cell of the mesh (its face slots per cell).
int max_faces_per_cell(const Mesh& mesh);

}  // namespace gpufem
