#pragma once
// One rank's part of a generated box shape, made by that rank alone from the shape's grid and
// the split of its boxes into blocks (mesh/grid_blocks.hpp): the same part that cutting the
// whole mesh along the blocks gives (part_mesh, part_node_numbering), without the whole mesh.
#include "assembly/part_mesh.hpp"
#include "assembly/part_numbering.hpp"
#include "mesh/grid_blocks.hpp"
#include "mesh/shape_grid.hpp"

namespace gpufem {

/// A part's mesh and the numbering of its nodes (see PartMesh and PartNumbering).
struct GridPart {
    PartMesh part;
    PartNumbering numbering;
};

/// Part `part` of shape split by blocks: the cells of its block, then the cells of the boxes
/// just above it that hold a node it owns; its nodes owned first (in global order), then the
/// ghosts by owner rank; a node's owner is the lowest part whose block touches it (the rule of
/// node_owners); the boundary groups' facets whose nodes the part holds. Host threads.
GridPart grid_part(const ShapeGrid& shape, const GridBlocks& blocks, int part);

}  // namespace gpufem
