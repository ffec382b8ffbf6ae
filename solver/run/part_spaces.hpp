#pragma once
// p-multigrid's coarser spaces on one rank's part of a mesh (solver/multigrid/part_space.hpp):
// each lower degree's unknowns and, on a generated grid of boxes, each grid of half the boxes
// below degree 1, numbered across the ranks, with the transfers from the next finer space.
#include <vector>

#include "linalg/communicator.hpp"
#include "mesh/shape_grid.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/part_space.hpp"
#include "solver/run/part_payload.hpp"

namespace gpufem {

/// The part's coarser spaces, finest first, on exec: the lower degrees (k/2 then 1 for even
/// k >= 4, else 1, or with through_degree_two on triangles and tetrahedra of degree 3, 2 then 1;
/// none at degree 1 or on a mesh of several cell types); then, where the part
/// was generated from shape (null: not) on quadrilaterals or hexahedra with an even number of
/// boxes per unit length (at least 4), the grids of half the boxes while that number stays even
/// and at least 4, as one rank's p-multigrid coarsens. Each grid point below degree 1 belongs
/// to the rank owning the mesh node there. permutation: the operator's numbering of the owned
/// nodes (new -> part-local; empty: the part's order), which the first transfer's rows follow.
/// Collective over host.
template <typename V>
std::vector<PartSpace<V>> part_spaces(const PartPayload& part, const Array<index_type>& permutation,
                                      const ShapeGrid* shape, const ExecPtr& exec, const Communicator& host,
                                      bool through_degree_two = false);

/// The part's coarser spaces when the case's preconditioner asks for them (p-multigrid with
/// finite elements), else none; a part of a generated box shape is its block of the grid. Logs (rank 0) when there
/// are none to give. Collective over host.
template <typename V>
std::vector<PartSpace<V>> preconditioner_spaces(const CaseSpec& spec, const PartPayload& part,
                                                const Array<index_type>& permutation, const ExecPtr& exec,
                                                const Communicator& host);

}  // namespace gpufem
