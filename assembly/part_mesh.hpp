#pragma once
// The mesh one rank works on when a mesh's cells are split among ranks: its own cells, then
// the cells around the nodes it owns that other ranks hold (its rows need their element
// matrices), with the nodes in the part's local numbering (assembly/part_numbering.hpp).
#include <vector>

#include "assembly/part_numbering.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// One part's mesh: cells 0 .. own_cells - 1 are the part's own (what it writes), the rest
/// are the cells around its owned nodes that other parts hold. Node l of mesh is the part's
/// local unknown l (global node numbering.global[l]).
struct PartMesh {
    Mesh mesh;
    index_type own_cells = 0;
    std::vector<index_type> global_cells;  ///< the whole mesh's number of each cell (-1 past 2^31 - 1)
    /// Finite-volume shares: the whole mesh's number of each node (what the ranks' node sums
    /// meet by); empty for finite elements, whose numbering.global numbers the nodes.
    std::vector<index_type> global_nodes;
};

/// The mesh of numbering.part (see PartMesh) cut from the whole mesh: its own cells and the
/// cells around the nodes it owns, in the whole mesh's order within each group; cell types,
/// subdomains and groups kept; a boundary group keeps the facets whose nodes all lie in the
/// part (every facet through an owned node does), and stays even when that leaves none, so
/// that a condition on it is not refused on a part that does not touch it.
/// owners: node_owners(whole, partition); numbering: part_node_numbering(whole, ...).
PartMesh part_mesh(const Mesh& whole, const CellPartition& partition, const std::vector<int>& owners,
                   const PartNumbering& numbering);

/// The cells of whole listed in cells (in that order, with their types, groups and cell
/// fields) over the nodes listed in nodes (local node l: whole's node nodes[l]; every node of
/// those cells among them; local: the inverse map, each whole node's local number or -1),
/// with whole's other attributes but no boundary groups.
Mesh cut_cells(const Mesh& whole, const std::vector<index_type>& cells, const std::vector<index_type>& nodes,
               const std::vector<index_type>& local);

/// The part's own cells and the nodes they use, renumbered 0 .. n - 1 in local order: what a
/// rank writes as its piece of the output. nodes[k]: the part-mesh node of piece node k.
struct OwnPiece {
    Mesh mesh;
    std::vector<index_type> nodes;
};

/// The piece of part (its own cells only, with their groups and the mesh's subdomains; no
/// boundary groups) for output.
OwnPiece own_piece(const PartMesh& part);

}  // namespace gpufem
