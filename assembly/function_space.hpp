#pragma once
// Spaces of unknowns, apart from the mesh they live on: a Lagrange finite element space (a
// mesh, a degree and the numbering of its unknowns), a cell space for finite volumes, and the
// rows of an external system. Every space numbers its unknowns in a DofLayout: the unknowns
// this process owns first, then the ghosts (copies of unknowns other processes own) grouped
// by owner. On one process every unknown is owned.
#include <string>
#include <vector>

#include "linalg/types.hpp"

namespace gpufem {

struct Mesh;

/// Where the unknowns of a space live.
enum class UnknownLocation {
    nodes,  ///< Lagrange nodes of the mesh (vertices and high-order nodes): VTU point data
    cells,  ///< one per cell (cell-centred finite volumes): VTU cell data
    rows,   ///< the rows of an external matrix (no mesh): written as Matrix Market
};

/// "nodes", "cells", "rows" (report.json's unknowns.on).
const char* unknown_location_name(UnknownLocation location);

/// A run of ghost unknowns that one other process owns.
struct GhostBlock {
    int owner = 0;          ///< the owning process's rank
    index_type count = 0;   ///< how many consecutive ghosts it owns
};

/// How a space's unknowns are numbered on this process: 0..owned-1 are owned here (the rows
/// of this process's part of a system), owned..size()-1 are ghosts, in blocks by owner rank
/// (ascending), each block in the owner's order.
struct DofLayout {
    index_type owned = 0;                 ///< unknowns this process owns (numbered first)
    std::vector<GhostBlock> ghost_blocks;  ///< the ghosts, by owner, after the owned ones

    /// The ghost unknowns held here.
    index_type ghosts() const;
    /// Owned and ghost unknowns together.
    index_type size() const { return owned + ghosts(); }
    /// Whether any unknown is another process's (several processes share the space).
    bool has_ghosts() const { return !ghost_blocks.empty(); }
    /// The local number of the first ghost owned by ghost_blocks[block].
    index_type ghost_begin(std::size_t block) const;
};

/// The layout of n unknowns all owned here (one process).
DofLayout owned_layout(index_type n);

/// A space of unknowns: where they live, on which mesh, at which degree, and how they are
/// numbered. The mesh's own Lagrange space (isoparametric_space) has the mesh's nodes as its
/// unknowns, in node order, so its element restriction is the mesh's cells; lower-degree
/// spaces on the same mesh (assembly/lagrange_space.hpp) number a subset of those nodes.
struct FunctionSpace {
    UnknownLocation location = UnknownLocation::nodes;
    const Mesh* mesh = nullptr;  ///< the mesh it lives on; null for the rows of a matrix
    int degree = 0;              ///< Lagrange degree (nodes); 0 for cells and rows
    DofLayout layout;            ///< the numbering of its unknowns

    /// The unknowns held here (owned and ghosts): the length of a vector in this space.
    index_type size() const { return layout.size(); }
    /// What it is, for logs ("degree-2 Lagrange space on 12345 nodes").
    std::string describe() const;
};

/// The isoparametric Lagrange space of mesh: degree mesh.degree, one unknown per mesh node.
FunctionSpace isoparametric_space(const Mesh& mesh);
/// The finite-volume space of mesh: one unknown per cell, in cell order.
FunctionSpace cell_space(const Mesh& mesh);
/// The unknowns of an external system of `rows` rows.
FunctionSpace row_space(index_type rows);

}  // namespace gpufem
