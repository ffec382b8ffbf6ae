#pragma once
// Overlapping cells of a 2D mesh, whatever each cell's orientation: Gmsh orients each surface
// as it was drawn, so a valid mesh may hold cells of both orientations, and only overlap is an
// error. Two cells that share an edge must lie on its two sides (each traverses it the other
// way relative to its own orientation), and the angles of the cells around a node add up to
// 2 pi inside the mesh and to at most 2 pi on its boundary. In 3D, two cells sharing a face
// must lie on its two sides.
#include <optional>

#include "mesh/face_slots.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Where two 2D cells overlap: a pair sharing an edge on one side of it, or a node whose
/// cells' angles do not add up (cell and other -1 then).
struct Overlap {
    long long cell = -1, other = -1;  ///< cell: of the fewer orientation when they differ
    long long node = -1;              ///< a node around which the cells overlap, or -1
    long long positive = 0, negative = 0;  ///< cells of each orientation (signed area)
};

/// The first overlap of a 2D mesh's cells (corners as straight cells), or none.
std::optional<Overlap> find_overlap_2d(const Mesh& mesh, const FaceSlots& faces);

/// Throws MeshSourceError naming the mesh, the cells and their nodes (or the node) when the
/// cells of a 2D mesh overlap ("tangled").
void check_no_overlap_2d(const Mesh& mesh, const FaceSlots& faces);

/// 3D: the first pair of cells sharing a face whose corners' centres lie on the same side of
/// it (one cell folded over or lying on the other), or none. Exact for tetrahedra; a valid
/// non-convex cell of another shape can hold its centre beyond a face.
std::optional<Overlap> find_fold_3d(const Mesh& mesh, const FaceSlots& faces);

/// Throws MeshSourceError naming the mesh and both cells when find_fold_3d finds a pair.
void check_no_fold_3d(const Mesh& mesh, const FaceSlots& faces);

}  // namespace gpufem
