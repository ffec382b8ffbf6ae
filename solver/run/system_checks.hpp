#pragma once
// Checks of an assembled system before its solve: a row whose diagonal is zero (an empty or
// vanishing row: a singular matrix, or one the chosen method or preconditioner cannot take)
// is refused with its row named; a diagonal far below the largest is warned about.
#include "assembly/discretisation.hpp"
#include "solver/case/case_file.hpp"

namespace gpufem {

/// Throws std::runtime_error naming the first row (in the discretisation's numbering: the
/// node or cell for meshes, the file's row for matrix files) whose diagonal is NaN or Inf, or
/// is zero where CG or a preconditioner built from the diagonal (jacobi, amg, pmg) is asked
/// for; BiCGSTAB without a preconditioner may take a zero diagonal and is only warned. Warns
/// about a diagonal below unit roundoff times the largest (a nearly singular system). Does
/// nothing for an operator without its diagonal.
template <typename V>
void check_system_diagonal(const DiscreteSystem<V>& system, const Discretisation<V>& disc,
                           const SolverSpec& solver);

}  // namespace gpufem
