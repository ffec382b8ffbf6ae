#pragma once
// Anderson acceleration of a fixed-point iteration x <- G(x) on vectors of one executor: the
// next iterate combines the last `depth` steps so that the combination of their residuals
// f = G(x) - x is smallest. The finite volumes' deferred non-orthogonal correction (G: one
// solve with the right-hand side corrected by x) converges in a few passes with it where the
// plain iteration takes tens, and stays convergent where the plain one diverges.
#include <deque>

#include "linalg/array.hpp"
#include "linalg/communicator.hpp"

namespace gpufem {

/// Type-II Anderson mixing (Walker & Ni's formulation): with f_k = g_k - x_k and the
/// differences dF, dG of the last `depth` steps, x_{k+1} = g_k - dG gamma, gamma minimising
/// ||f_k - dF gamma|| (normal equations scaled to a unit diagonal, regularised; a few dot
/// products a step, summed over the processes in one reduction).
template <typename V>
class AndersonMixing {
public:
    /// depth: how many earlier steps are combined (0: plain iteration, x_{k+1} = g_k); comm:
    /// the processes the vectors are split among (their dot products summed over them).
    explicit AndersonMixing(int depth, const Communicator& comm = serial_communicator()) : depth_(depth), comm_(comm) {}

    /// The next iterate from x_k and g_k = G(x_k) (same executor and size).
    Array<V> next(const Array<V>& x, const Array<V>& g);

private:
    int depth_;
    const Communicator& comm_;
    std::deque<Array<V>> df_, dg_;  ///< f and g differences, newest last
    Array<V> last_f_, last_g_;
};

}  // namespace gpufem
