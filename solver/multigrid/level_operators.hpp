#pragma once
// What every multigrid hierarchy makes of its levels' matrices: a stored operator for a
// Galerkin level or a transfer, and the checked inverse diagonal its smoother uses.
#include <memory>

#include "linalg/csr.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// matrix as an operator in the registry's `csr` format with its fixed rule (no run-time
/// tuner: each tuning SpMV waits for the previous one's time, and a V-cycle applies dozens of
/// operators a few times each), with its diagonal attached. The operator keeps the matrix
/// (stored_csr()).
template <typename V>
std::unique_ptr<LinearOperator<V>> csr_level_operator(Csr<V> matrix);

/// 1 / diag(op), on op's executor; throws std::invalid_argument naming the row on a zero or
/// non-finite entry.
template <typename V>
Array<V> inverse_diagonal_of(const LinearOperator<V>& op);

}  // namespace gpufem
