#pragma once
// The matrix-free (`lma`) system of one rank's part of a distributed problem, split at the
// halo as assembly/part_system.hpp describes: the element matrices of the cells before the
// halo and after it, each cell type's slots split where its interior cells end.
#include "assembly/lma_system.hpp"
#include "assembly/part_system.hpp"

namespace gpufem {

/// The LMA system of a part (mesh: the part's mesh, nodes 0 .. owned - 1 owned, the others
/// ghosts) on exec: every cell's element matrix and load as assemble_lma_system computes them,
/// the Dirichlet data changed by owners_dirichlet (the ghosts' data as their owners have it)
/// before the elimination. With the atomic scatter the interior keeps up to 31 of its cells
/// per cell type for the boundary (each type's first slot after the halo stays aligned); the
/// colour scatter colours the interior cells and the others apart, so each group's colours
/// are launched on their side of the halo.
template <typename V>
PartMatrixFreeSystem<V> assemble_part_lma_system(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                                 const ProblemSpec& problem, const LmaOptions& options,
                                                 const DirichletAdjustment<V>& owners_dirichlet);

}  // namespace gpufem
