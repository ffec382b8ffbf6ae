#pragma once
// The share of a mesh one rank works on when finite volumes run across ranks: its own cells
// (a cell partition's part), then its ghost cells, the face neighbours of its own that other
// ranks hold, whose values (and cell gradients, for the non-orthogonal correction) come from
// their owners. The unknowns are the cells, numbered as assembly/part_numbering.hpp numbers
// nodes: owned first, then the ghosts grouped by owner rank.
#include <array>
#include <vector>

#include "assembly/part_mesh.hpp"
#include "assembly/part_numbering.hpp"
#include "linalg/executor.hpp"
#include "mesh/cell_faces.hpp"

namespace gpufem {

/// The whole mesh's cells around each boundary facet, what every part's share is cut with.
struct FvWholeFaces {
    std::vector<index_type> neighbour;  ///< per face slot of the whole mesh: the cell across, or -1
    int faces_per_cell = 0;
    /// Per boundary group, per facet: the (at most two) cells that have it as a face, -1 for none.
    std::vector<std::vector<std::array<index_type, 2>>> facet_cells;
};

/// The face adjacency of whole (found on exec, kept on the host) and the cells of every
/// boundary facet.
FvWholeFaces fv_whole_faces(const Mesh& whole, const ExecPtr& exec);

/// One rank's share for finite volumes: part.mesh holds the own cells (whole-mesh order), then
/// the ghost cells by owner rank (whole-mesh order within each owner), over the nodes they use
/// (in whole-mesh order); its boundary groups keep the facets that are faces of those cells.
/// numbering.global: each cell's number in the whole mesh; layout: the own cells, then the
/// ghost blocks; part.global_nodes: each node's number in the whole mesh.
struct FvPart {
    PartMesh part;
    PartNumbering numbering;
};

/// The share of `part` (see FvPart) under partition.
FvPart fv_part(const Mesh& whole, const FvWholeFaces& faces, const CellPartition& partition, int part);

}  // namespace gpufem
