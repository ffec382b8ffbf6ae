#pragma once
// Hanging nodes: a node of the mesh lying on a boundary face (a face of one cell) that does
// not have it as a corner, e.g. the middle of an edge split by the two cells on its other
// side. Such a face is not on the domain's boundary: the cells on its two sides are not
// joined there. Found in linear time: the boundary faces' nodes hashed into a grid of the
// boundary faces' mean size, each boundary face testing the nodes of the grid boxes it
// touches.
#include "mesh/face_slots.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Throws MeshSourceError naming the mesh, the node and its position, and the cell and face
/// it hangs on, when a node lies on a boundary face that does not have it as a corner.
void check_hanging_nodes(const Mesh& mesh, const FaceSlots& faces);

}  // namespace gpufem
