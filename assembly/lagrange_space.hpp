#pragma once
// Lagrange spaces of a lower degree on a mesh of order k: p-multigrid's coarse spaces. A
// degree-c space has as its unknowns the mesh nodes on each cell's degree-c lattice points
// (c dividing k; on quadrilaterals and hexahedra also the degree-k lattice points nearest
// them; on triangles and tetrahedra of odd degree also c = 2, each edge midpoint named by one
// of the two edge nodes nearest it; c = 1: the vertices), numbered in node order, and its own
// dof map; its functions are represented exactly in the mesh's own space (the embedding). A
// mesh node only names a coarse unknown: the unknown is the coarse function's value at its own
// element node.
#include <vector>

#include "assembly/function_space.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// How a degree-c space sits inside the mesh's degree-k space, the same for every cell
/// (Lagrange spaces on one mesh), or on a mesh of several cell types for every cell of a type:
/// then one table per ElementType (by its number; ncl the most degree-c nodes of the mesh's
/// types, npc the mesh's nodes_per_cell), a type's unused entries -1 and 0, a type without
/// cells in the mesh all of them.
struct LagrangeEmbedding {
    /// For each local unknown of the degree-c element, the local node of the degree-k element
    /// at the same reference point (per table: ncl entries).
    std::vector<int> fine_local;
    /// Empty, or for each local unknown whose reference point is no degree-k node (a degree-2
    /// edge midpoint in a triangle or tetrahedron of odd degree k): the second of the two
    /// degree-k edge nodes nearest it (fine_local holds the first), -1 for the others. A cell
    /// names such an unknown by the one of the two with the smaller coordinates (x, then y,
    /// then z), so that every cell and every rank around the edge names it by the same node.
    std::vector<int> fine_twin;
    /// The reference interpolation, npc x ncl row-major (per table): the degree-c basis
    /// functions at the degree-k reference nodes.
    std::vector<double> weights;
    /// Whether the tables are one per cell type (a mesh of several types).
    bool per_cell_type = false;
};

/// A Lagrange space of degree c on a mesh of order k (c as lagrange_space takes it).
struct LagrangeSpace {
    FunctionSpace space;            ///< nodes, degree c, its unknowns all owned on one process
    int dofs_per_cell = 0;          ///< degree-c unknowns per cell (ncl; several types: the most)
    Array<index_type> cell_dofs;    ///< the dof map: cells x ncl, each cell's unknowns, -1 after them
    Array<index_type> dof_nodes;    ///< the mesh node of each unknown
    Array<index_type> node_dofs;    ///< the unknown of each mesh node, -1 for none
    LagrangeEmbedding embedding;    ///< its place in the mesh's own space

    /// The space's degree c.
    int degree() const { return space.degree; }
    /// Its unknowns on this process.
    index_type size() const { return space.size(); }
};

/// The degree-c space of mesh, its arrays on exec and made there; without with_dof_map its
/// cell_dofs stay empty (an interpolation does not need them). c divides the mesh's degree k,
/// or on a mesh of quadrilaterals or of hexahedra is below k with no i k / c (0 < i < c) at a
/// half (odd c under odd k): each degree-c lattice coordinate then rounds to one degree-k
/// coordinate, distinct ones to distinct ones, and the rounding commutes with the box's
/// symmetries, so neighbouring cells name a shared coarse unknown by the same mesh node; or
/// on a mesh of triangles or of tetrahedra c = 2 under an odd k (LagrangeEmbedding::fine_twin).
/// Throws std::invalid_argument for other c.
LagrangeSpace lagrange_space(const Mesh& mesh, int c, const ExecPtr& exec, bool with_dof_map = true);

}  // namespace gpufem
