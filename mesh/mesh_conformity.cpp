#include "mesh/mesh_conformity.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "mesh/cell_description.hpp"
#include "mesh/cell_faces.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/hanging_nodes.hpp"
#include "mesh/mesh_overlap.hpp"

namespace gpufem {
namespace {

/// Sorts a face's 2 to 4 nodes in place (insertion sort).
void sort_nodes(index_type* nodes, int n)
{
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && nodes[j] < nodes[j - 1]; --j) std::swap(nodes[j], nodes[j - 1]);
}

/// Whether slot s's face and the face of the cell across it that points back hold the same
/// corners.
bool face_matches_across(const FaceSlots& faces, long long s)
{
    const long long other = faces.neighbour[static_cast<std::size_t>(s)];
    const long long c = s / faces.faces_per_cell;
    index_type mine[4] = {0, 0, 0, 0}, theirs[4] = {0, 0, 0, 0};
    const int n = faces.face_nodes(s, mine);
    sort_nodes(mine, n);
    for (int f = 0; f < faces.shape(other).faces; ++f) {
        const long long t = other * faces.faces_per_cell + f;
        if (faces.neighbour[static_cast<std::size_t>(t)] != c || faces.face_nodes(t, theirs) != n) continue;
        sort_nodes(theirs, n);
        if (std::equal(mine, mine + n, theirs)) return true;
    }
    return false;
}

}  // namespace

bool face_adjacency_supported(const Mesh& mesh)
{
    if (mesh.dim != 2 && mesh.dim != 3) return false;
    if (!mesh.first_order_only()) return true;
    return mesh.degree == 1 && (mesh.dim == 2 || mesh.num_nodes() < (1 << 21));
}

FaceSlots face_slots(const Mesh& mesh, const ExecPtr& exec)
{
    const std::vector<int> no_groups;
    const CellFaces adjacency = cell_faces(mesh, exec, &no_groups);
    FaceSlots out;
    out.mesh = &mesh;
    out.faces_per_cell = adjacency.faces_per_cell;
    out.neighbour = adjacency.neighbour.to_host();
    out.interior_faces = adjacency.interior_faces;
    out.boundary_faces = adjacency.boundary_faces;
    return out;
}

void check_matching_faces(const Mesh& mesh, const FaceSlots& faces)
{
    // 2D faces are edges, matched by both corners; tetrahedra's and hexahedra's alone meet
    // faces of their own kind, whose three lowest corners fix the face.
    if (mesh.dim != 3 || !mesh.first_order_only()) return;
    const long long slots = static_cast<long long>(faces.neighbour.size());
    long long first = std::numeric_limits<long long>::max();
#pragma omp parallel for reduction(min : first) schedule(static)
    for (long long s = 0; s < slots; ++s)
        if (faces.neighbour[static_cast<std::size_t>(s)] >= 0 && !face_matches_across(faces, s)) first = std::min(first, s);
    if (first == std::numeric_limits<long long>::max()) return;
    const long long c = first / faces.faces_per_cell;
    throw MeshSourceError(fmt::format(
        "mesh {} is not conforming: face {} of {} meets {} on a face with other corners (a "
        "quadrilateral face against triangles, or faces that share three corners only)",
        mesh.source, first % faces.faces_per_cell, cell_text(mesh, c),
        cell_text(mesh, faces.neighbour[static_cast<std::size_t>(first)])));
}

ConformityReport check_mesh_conformity(const Mesh& mesh, const FaceSlots& faces)
{
    ConformityReport out{true, faces.interior_faces, faces.boundary_faces};
    check_matching_faces(mesh, faces);
    check_hanging_nodes(mesh, faces);
    if (mesh.dim == 2) check_no_overlap_2d(mesh, faces);
    // Only a simplex always holds its corners' centre inside: cells of other shapes (a
    // pyramid on a warped base) can be valid with it beyond a face.
    else if (!mesh.is_mixed() && mesh.cell_type == ElementType::tetrahedron) check_no_fold_3d(mesh, faces);
    return out;
}

}  // namespace gpufem
