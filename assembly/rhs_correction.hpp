#pragma once
// A right-hand side that depends on the solution: finite volumes' explicit non-orthogonal
// correction, b(u) = b(0) + C u. What a corrected solve (solver/run/fv_correction.hpp) asks of
// whatever computes it: a discretisation on one rank, or a rank's share of one across ranks
// (solver/run/distributed_fv.hpp), which exchanges its ghosts' values and gradients first.
#include <stdexcept>

#include "linalg/array.hpp"

namespace gpufem {

/// The solution-dependent right-hand side of a system (see the header comment).
template <typename V>
class RhsCorrection {
public:
    virtual ~RhsCorrection() = default;
    /// Solves after the first whose right-hand side depends on the previous solution; 0 for a
    /// linear system solved once.
    virtual int correction_passes() const { return 0; }
    /// The corrected right-hand side is affine in u, b(u) = b(0) + C u, and should be solved
    /// with the system in one Krylov solve of A - C (solver/run/corrected_operator.hpp) instead of
    /// passes; only asked when correction_passes() > 0.
    virtual bool correction_is_affine() const { return false; }
    /// The right-hand side of the next pass from the solution u of the last (original
    /// numbering, on the executor that solved); only called when correction_passes() > 0.
    virtual Array<V> corrected_rhs(const Array<V>& /*u*/) const
    {
        throw std::logic_error("corrected_rhs: a system solved once has no corrected right-hand side");
    }
    /// corrected_rhs(u) into out (resized when its size differs): an implementation may keep
    /// its scratch, so repeated calls (a corrected operator's products) allocate nothing.
    virtual void corrected_rhs_into(const Array<V>& u, Array<V>& out) const { out = corrected_rhs(u); }
};

}  // namespace gpufem
