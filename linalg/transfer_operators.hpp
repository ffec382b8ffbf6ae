#pragma once
// A multigrid transfer given as operators rather than as a stored matrix.
#include <memory>

#include "linalg/linear_operator.hpp"

namespace gpufem {

/// The transfer between a space and a coarser one: the prolongation P (fine x coarse) and the
/// restriction R = P^T (coarse x fine), applied without a stored matrix (e.g. by sum
/// factorisation, assembly/pa_transfer.hpp).
template <typename V>
struct TransferOperators {
    std::unique_ptr<LinearOperator<V>> prolongation;
    std::unique_ptr<LinearOperator<V>> restriction;
};

}  // namespace gpufem
