#pragma once
// The Robin term -kappa du/dn = h (u - u_inf) on an executor: its boundary mass matrix
// int h N_i N_j ds per facet of the Robin groups and its load int h u_inf N_i ds (into the
// right-hand side), then added where the operator keeps its values: an assembled CSR matrix
// (add_robin_to_csr), or the element matrices of the cells that own the facets
// (add_robin_to_cells: the lma format, p-multigrid's coarse operators), so that every operator
// of a problem holds the same term.
#include <vector>

#include "assembly/problem_spec.hpp"
#include "assembly/robin_kernels.hpp"
#include "linalg/array.hpp"
#include "linalg/csr.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The Robin facets of one facet shape of one group, on an executor.
struct RobinFacetBlock {
    int nodes_per_facet = 0;
    Array<index_type> nodes;     ///< nodes_per_facet per facet (the group's order)
    Array<double> matrices;      ///< nodes_per_facet^2 per facet: int_f h N_i N_j ds
    Array<index_type> owner;     ///< after locate_robin_facets: the cell each facet is a face of
    Array<index_type> places;    ///< after locate_robin_facets: each node's place in its owner's row
    index_type count() const { return nodes_per_facet > 0 ? static_cast<index_type>(nodes.size() / nodes_per_facet) : 0; }
};

/// The kernels' view of a block's facets and matrices.
inline FacetMatrices facet_matrices(const RobinFacetBlock& block)
{
    return {block.count(), block.nodes_per_facet, block.nodes.data(), block.matrices.data()};
}

/// Every Robin facet of a problem, block by block (a group, split by facet shape).
struct RobinFacets {
    std::vector<RobinFacetBlock> blocks;
    bool located = false;  ///< owners and places found (locate_robin_facets)
    bool empty() const { return blocks.empty(); }
};

/// Checks a Robin coefficient text where it is a constant: h must be >= 0 and finite, u_inf
/// finite. Throws std::invalid_argument naming problem.robin.GROUP.KEY otherwise.
void check_robin_constants(const RobinCondition& condition);

/// The Robin facets of the conditions on rhs's executor with their matrices, and their loads
/// added into rhs (one value per node). coordinates: the mesh's, in double, on that executor.
/// Throws std::runtime_error naming problem.robin.GROUP (a group the mesh does not have,
/// with the groups it has) and naming the point where h is negative or not finite or u_inf is
/// not finite.
template <typename V>
RobinFacets robin_facets(const Mesh& mesh, const double* coordinates,
                         const std::vector<RobinCondition>& conditions, Array<V>& rhs);

/// Finds the cell each facet is a face of (the lowest-numbered where two are) and where the
/// facet's nodes sit in that cell's row of nodes, on the facets' executor. Throws
/// std::runtime_error naming the group when a facet is no cell's face.
void locate_robin_facets(const Mesh& mesh, const std::vector<RobinCondition>& conditions,
                         RobinFacets& facets);

/// robin_facets and locate_robin_facets in one, with the mesh's coordinates brought to rhs's
/// executor when there are Robin conditions (nothing is done without).
template <typename V>
RobinFacets located_robin_facets(const Mesh& mesh, const std::vector<RobinCondition>& conditions, Array<V>& rhs);

/// Adds every facet matrix into an assembled matrix (any row offsets) on its executor.
template <typename V>
void add_robin_to_csr(const RobinFacets& facets, Csr<V>& matrix);
template <typename V>
void add_robin_to_csr(const RobinFacets& facets, WideCsr<V>& matrix);

/// Adds every located facet matrix into the element matrix of its owner cell: the cells of
/// `matrices` are the mesh's in order, or with cell_map (one entry per mesh cell, on the
/// executor) cell_map[c] is cell c's number there (-1: not among them). stride 0: cell-major
/// row-major matrices; otherwise the lma format's interleaved layout with that stride
/// (symmetric: the packed upper triangle).
template <typename V>
void add_robin_to_cells(const RobinFacets& facets, const index_type* cell_map, int npe,
                        index_type stride, bool symmetric, Array<V>& matrices);

}  // namespace gpufem
