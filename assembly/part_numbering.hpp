#pragma once
// The numbering of one part's unknowns when a mesh's cells are split among ranks
// (mesh/mesh_partition.hpp): the part's owned unknowns first, then its ghosts grouped by the
// rank that owns them (assembly/function_space.hpp's DofLayout), each with its global number
// (the one-rank numbering, for output and for comparing with a one-rank run).
#include <vector>

#include "assembly/function_space.hpp"
#include "mesh/mesh_partition.hpp"

namespace gpufem {

/// The owner of every node of mesh under a cell partition: the lowest part among the cells
/// that hold the node (a fixed rule every rank can apply alone).
std::vector<int> node_owners(const Mesh& mesh, const CellPartition& partition);

/// One part's unknowns of the mesh's isoparametric space: the nodes of its cells.
struct PartNumbering {
    int part = 0;
    DofLayout layout;                ///< owned first, then ghosts by owner rank
    std::vector<index_type> global;  ///< the global node of each local unknown
};

/// The numbering of `part`'s nodes: the nodes it owns in global order, then, for each other
/// part in increasing rank, the nodes of this part's cells that part owns, in global order.
/// owners: node_owners(mesh, partition).
PartNumbering part_node_numbering(const Mesh& mesh, const CellPartition& partition,
                                  const std::vector<int>& owners, int part);

/// What one part sends and receives to bring its ghosts up to date from their owners.
struct HaloPlan {
    /// Per neighbour a part sends to: the rank, and the local (owned) unknowns whose values it
    /// sends, in the order the neighbour keeps them as ghosts.
    struct Send {
        int peer = 0;
        std::vector<index_type> local;
    };
    std::vector<Send> sends;
    /// The ghost blocks of the part's layout: from each owner its block, in place.
    std::vector<GhostBlock> receives;
};

/// The halo plan of every part from every part's numbering (numbering[p] of part p).
std::vector<HaloPlan> halo_plans(const std::vector<PartNumbering>& numbering);

}  // namespace gpufem
