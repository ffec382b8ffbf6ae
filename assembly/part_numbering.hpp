#pragma once
// The numbering of one part's unknowns when a mesh's cells are split among ranks
// (mesh/mesh_partition.hpp): the part's owned unknowns first, then its ghosts grouped by the
// rank that owns them (assembly/function_space.hpp's DofLayout), each with its global number
// (the one-rank numbering, for output and for comparing with a one-rank run).
#include <cstdint>
#include <vector>

#include "assembly/function_space.hpp"
#include "mesh/mesh_partition.hpp"

namespace gpufem {

/// The owner of every node of mesh under a cell partition: the lowest part among the cells
/// that hold the node (a fixed rule every rank can apply alone).
std::vector<int> node_owners(const Mesh& mesh, const CellPartition& partition);

/// Whether cell c of mesh holds a node that part owns (owners: node_owners).
bool holds_owned_node(const Mesh& mesh, index_type c, const std::vector<int>& owners, int part);

/// One part's unknowns of the mesh's isoparametric space: the nodes of its own cells (what it
/// writes) and of every cell around a node it owns (the columns of the rows it owns).
struct PartNumbering {
    int part = 0;
    DofLayout layout;                ///< owned first, then ghosts by owner rank
    std::vector<index_type> global;  ///< the global node of each local unknown
};

/// The numbering of `part`'s nodes (see PartNumbering): the nodes it owns in global order,
/// then, for each other part in increasing rank, the nodes it holds that part owns, in
/// global order.
/// owners: node_owners(mesh, partition).
PartNumbering part_node_numbering(const Mesh& mesh, const CellPartition& partition,
                                  const std::vector<int>& owners, int part);

/// The halo plan (linalg/halo.hpp) of every part from every part's numbering (numbering[p]
/// of part p): its receives are the part's ghost blocks.
std::vector<HaloPlan> halo_plans(const std::vector<PartNumbering>& numbering);

/// The halo plan of this rank's part from its numbering alone, each rank passing its own
/// (collective over host): every rank sends the owners of its ghosts their global numbers,
/// and each owner finds them among its owned unknowns (in global order). The plan halo_plans
/// makes from every part's numbering. Throws std::logic_error when a rank is asked for an
/// unknown it does not own.
HaloPlan halo_plan_from_owners(const Communicator& host, const PartNumbering& numbering);

/// halo_plan_from_owners with each unknown named by a key instead of its global number (keys:
/// one per unknown of layout, owned then ghosts; an owner's and a holder's copy of an unknown
/// have the same key, and no two owned unknowns of a rank share one). Collective over host.
HaloPlan halo_plan_from_keys(const Communicator& host, const DofLayout& layout, const std::vector<std::int64_t>& keys);

}  // namespace gpufem
