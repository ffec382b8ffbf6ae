#pragma once
// The sum-factorised (`pa`) system of one rank's part of a distributed problem, split at the
// halo as assembly/part_system.hpp describes: the part's cells ordered interior first, so that
// the cells applied before and after the halo are two ranges of the one operator's cells.
#include "assembly/boundary_data.hpp"
#include "assembly/part_system.hpp"

namespace gpufem {

/// The pa system of a part (mesh: the part's mesh of quadrilaterals or hexahedra, nodes
/// 0 .. owned - 1 owned, the others ghosts) on exec: the point factors and loads of every
/// cell as assemble_pa_system computes them, the Dirichlet data changed by owners_dirichlet
/// (the ghosts' data as their owners have it) before the elimination. Throws
/// std::invalid_argument as assemble_pa_system does.
template <typename V>
PartMatrixFreeSystem<V> assemble_part_pa_system(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                                const ProblemSpec& problem,
                                                const DirichletAdjustment<V>& owners_dirichlet);

}  // namespace gpufem
