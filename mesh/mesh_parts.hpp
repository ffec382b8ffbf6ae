#pragma once
// The connected parts of a mesh: cells joined through shared nodes (what couples finite
// element unknowns) or through shared faces (finite volumes'). A part without a Dirichlet
// condition floats: its solution is fixed only up to a constant, and the solver stagnates or
// breaks down without saying why.
#include <vector>

#include "mesh/face_slots.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Each cell's part, numbered 0.. in the order of the parts' first cells.
struct MeshParts {
    std::vector<index_type> of_cell;
    index_type count = 0;
};

/// The parts of cells joined through shared corners.
MeshParts parts_through_nodes(const Mesh& mesh);

/// The parts of cells joined through shared faces (faces: the mesh's face adjacency).
MeshParts parts_through_faces(const Mesh& mesh, const FaceSlots& faces);

/// "part of 12 cells (subdomain 'inner'; first cell 40 (counted from 0; nodes at ...))": a
/// part named by its cells' physical groups, its size and its first cell.
std::string part_text(const Mesh& mesh, const MeshParts& parts, index_type part);

}  // namespace gpufem
