#pragma once
// p-multigrid's first coarse level of a `pa` operator without a stored matrix: the lower
// degree on the same cells and quadrature points, applied by sum factorisation from the fine
// operator's own factors (no Galerkin product, no sparsity pattern to build).
#include <memory>

#include "linalg/linear_operator.hpp"
#include "linalg/transfer_operators.hpp"

namespace gpufem {

/// The operator of the first transfer's coarse space when fine is a pa operator (without
/// Robin facets) and first is its transfer by sum factorisation (assembly/pa_transfer.hpp) on
/// the same executor and quadrature points: the coarse degree's tables at the fine points
/// over fine's factors (PaOperator::coarse_level). Its coarse Dirichlet nodes are those whose
/// basis function is non-zero at a fine Dirichlet node, found by restricting the fine
/// Dirichlet nodes with the transfer's table in absolute value; on the rows and columns of the
/// other coarse nodes it equals the Galerkin product P^T A P of fine's eliminated operator.
/// first is replaced by the same transfer held at zero on the coarse Dirichlet nodes (P M and
/// M P^T, M zeroing them): the coarse space satisfies the homogeneous Dirichlet conditions as
/// the fine one does, and the coarse level's Dirichlet rows (its diagonal only) never reach
/// the fine level. (The Galerkin couplings between free and coarse Dirichlet nodes are left
/// out with them, so the next coarser level, the Galerkin product of the fine operator, is
/// not exactly that of this one at those nodes: the held transfer never reads them.) Null,
/// first untouched, where pa_coarse_level_applies does not hold (pmg then takes the element
/// Galerkin product).
template <typename V>
std::unique_ptr<LinearOperator<V>> pa_coarse_level(const LinearOperator<V>& fine, TransferOperators<V>& first);

/// How a hierarchy with a pa_coarse_level made its coarse operators (report.json
/// preconditioner_details.coarse_operators).
inline constexpr const char* pa_coarse_level_origin =
    "the first from the operator's factors, the others element galerkin";

/// Whether pa_coarse_level makes a level of fine and first: the operator and transfer above,
/// and a coarse degree of at least 2 (degree 1 is AMG's, which needs its matrix).
template <typename V>
bool pa_coarse_level_applies(const LinearOperator<V>& fine, const TransferOperators<V>& first);

}  // namespace gpufem
