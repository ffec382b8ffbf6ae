#pragma once
// A mesh's conformity checked before assembly, the same for finite elements and finite
// volumes: every interior face shared by exactly two cells with the same corners, no face
// of three cells, no hanging node (a node of some cells lying on a face of another that
// does not have it: the cells on the two sides of that face are not joined, and the solution
// is wrong with no other sign), and no overlapping cells (in 2D whatever each cell's
// orientation; in tetrahedral meshes two cells on one side of the face they share). The face matching is the
// face adjacency's (cell_faces, on the executor: one sort); the geometric tests walk the
// boundary faces and the cells once on the host.
#include <vector>

#include "linalg/executor.hpp"
#include "mesh/face_slots.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Whether the face adjacency (cell_faces) takes the mesh: 2D or 3D; meshes of several cell
/// types, prisms or pyramids only at order 1 and (3D) below 2^21 nodes.
bool face_adjacency_supported(const Mesh& mesh);

/// The face adjacency of the mesh found on exec (no boundary group marked), on the host.
/// Throws MeshSourceError naming the face when three or more cells share one.
FaceSlots face_slots(const Mesh& mesh, const ExecPtr& exec);

/// What the conformity check counted, for the log and the report.
struct ConformityReport {
    bool checked = false;          ///< false: the face adjacency does not take the mesh
    long long interior_faces = 0;  ///< faces of two cells
    long long boundary_faces = 0;  ///< faces of one cell
};

/// Throws MeshSourceError naming the mesh, the cells, the face and the node when the mesh
/// is not conforming (see the file comment), or when cells overlap (2D: whatever their orientation; tetrahedra: across a face). faces: the mesh's
/// face adjacency (face_slots).
ConformityReport check_mesh_conformity(const Mesh& mesh, const FaceSlots& faces);

/// Throws MeshSourceError when two cells that share a face hold it with different corners
/// (3D meshes with faces of both kinds: faces are matched by three corners, so a
/// quadrilateral can meet a triangle).
void check_matching_faces(const Mesh& mesh, const FaceSlots& faces);

}  // namespace gpufem
