#pragma once
// A mesh from Gmsh refined part by part across the ranks of a run (mesh.refine): rank 0
// partitions the coarse cells (METIS) and sends each rank the coarse cells within two layers
// of its own; each rank refines them on its own device (the refinement and the degree's nodes,
// as one process would), keeps its part as if cut from the refined whole mesh (children stay
// with their parent's rank), and names each refined node by the first refined cell that holds
// it (its coarse ancestor, its place among the ancestor's children, the node's place in it),
// so that owners and holders find each other's nodes with no rank holding the refined mesh.
// Two layers are enough: every cell around a node a rank owns touches one of its own cells,
// and every cell around a node of those touches that cell, so each rank sees every cell
// around the nodes it holds and decides their owners as the whole mesh would.
#include <cstddef>
#include <vector>

#include "linalg/communicator.hpp"
#include "mesh/mesh_partition.hpp"
#include "mesh/mesh_source.hpp"
#include "solver/run/part_payload.hpp"

namespace gpufem {

/// Whether a mesh of spec is refined part by part: it goes through Gmsh, mesh.refine > 0 and
/// gpufem numbers its nodes (not gmsh_nodes). The coarse mesh decides the rest
/// (refines_parent_by_parent).
bool refined_by_parts(const MeshSpec& spec);

/// Whether a mesh's refinement numbers each cell's children after their parent's (cell
/// c's children are c * n .. c * n + n - 1): cells of one type, not prisms or pyramids.
bool refines_parent_by_parent(const Mesh& coarse);

/// Rank 0: every rank's coarse cells (CoarseLayer), packed, from the coarse mesh and its
/// partition. A boundary facet goes with a rank when one of its coarse cells holds it.
std::vector<std::vector<std::byte>> coarse_layers(const Mesh& coarse, const CellPartition& partition);

/// Every rank (collective over host): its part of the refined mesh from its coarse cells,
/// refined on exec as spec says; its unknowns numbered owned first, then the ghosts by owner
/// (global numbers: the owners' owned unknowns in rank order), and its halo plan.
/// refine_seconds: the refinement's time.
PartPayload refined_part(const CoarseLayer& layer, const MeshSpec& spec, const ExecPtr& exec,
                         const Communicator& host, double& refine_seconds);

}  // namespace gpufem
