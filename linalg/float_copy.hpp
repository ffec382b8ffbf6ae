#pragma once
// An operator that gives a copy of itself in single precision: what a multigrid cycle in float
// (solver.amg.precision: float) smooths with where the system keeps no assembled matrix to
// round (the matrix-free formats). A capability beside LinearOperator, asked for by
// float_copy_of.
#include <memory>

#include "linalg/linear_operator.hpp"

namespace gpufem {

/// The capability of an operator to copy itself into single precision.
class FloatCopyable {
public:
    virtual ~FloatCopyable() = default;
    /// The same operator with its values rounded to float (its diagonal too), on the same
    /// executor, independent of this one.
    virtual std::unique_ptr<LinearOperator<float>> float_copy() const = 0;
};

/// Whether op's format makes a float copy of it.
template <typename V>
bool makes_float_copy(const LinearOperator<V>& op)
{
    return dynamic_cast<const FloatCopyable*>(&op) != nullptr;
}

/// op's float copy where its format makes one, else null.
template <typename V>
std::unique_ptr<LinearOperator<float>> float_copy_of(const LinearOperator<V>& op)
{
    const auto* copyable = dynamic_cast<const FloatCopyable*>(&op);
    return copyable ? copyable->float_copy() : nullptr;
}

}  // namespace gpufem
