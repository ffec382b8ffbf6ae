#pragma once
// The smoothers of the multigrid levels: the largest eigenvalue of D^-1 A estimated by a few
// Lanczos steps, and a Chebyshev (or damped Jacobi) smoother over it.
#include <vector>

#include "linalg/array.hpp"
#include "linalg/communicator.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// An estimate of the largest eigenvalue of D^-1 A (A symmetric positive definite, dinv =
/// 1 / diag(A)) from `steps` steps of Jacobi-preconditioned CG, which is Lanczos on D^-1 A:
/// the largest eigenvalue of the Lanczos tridiagonal matrix (bisection on its Sturm
/// sequence). The steps are the merged CG's kernels, queued on a's executor when the estimate
/// is made, without a host round trip; lambda_max() reads their coefficients once, so that
/// the host can work (or queue other levels' estimates) meanwhile. The start vector is fixed
/// pseudo-random, so the estimate is the same every run and on both backends up to rounding.
/// It lies below the true value and converges to it from below; callers add a safety margin.
/// For a distributed a (each rank's owned rows), comm sums the dot products over the ranks
/// (collective: every rank makes it).
template <typename V>
class LambdaMaxEstimate {
public:
    /// Queues the steps; a and dinv need not outlive the estimate (the executor's stream
    /// orders their use before any later change).
    LambdaMaxEstimate(const LinearOperator<V>& a, const Array<V>& dinv, int steps,
                      const Communicator& comm = serial_communicator());
    /// Waits for the steps; the estimate (1 when the first step already failed: no direction
    /// of positive curvature, or no step at all).
    double lambda_max() const;

private:
    Array<double> coefficients_;  ///< CG's alpha_k at [2k], beta_k at [2k + 1] (NaN: not made)
};

/// LambdaMaxEstimate made and read at once.
template <typename V>
double estimate_lambda_max(const LinearOperator<V>& a, const Array<V>& dinv, int steps,
                           const Communicator& comm = serial_communicator())
{
    return LambdaMaxEstimate<V>(a, dinv, steps, comm).lambda_max();
}

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal d and
/// off-diagonal e (e.size() == d.size() - 1), by bisection to relative accuracy 1e-12.
double tridiagonal_lambda_max(const std::vector<double>& d, const std::vector<double>& e);

/// The upper end of the Chebyshev interval over its lower end (smoothed aggregation).
inline constexpr double chebyshev_range = 10.0;
/// The same for classical coarsening, whose coarse space takes more of the spectrum's lower
/// part (hypre's Chebyshev smoother uses 1 / 0.3): fewer iterations than 10 on triangles and
/// tetrahedra at P1 to P3.
inline constexpr double classical_chebyshev_range = 5.0;
/// The upper end of the Chebyshev interval as a multiple of the lambda_max estimate.
inline constexpr double chebyshev_margin = 1.1;

/// A polynomial smoother in D^-1 A: Chebyshev of a given degree over
/// [lambda_max / range, lambda_max] (the standard three-term recurrence), or damped Jacobi
/// (the same step with a fixed weight). Symmetric in the A inner product, so a V-cycle with
/// it before and after the coarse correction is a symmetric preconditioner.
template <typename V>
class PolynomialSmoother {
public:
    /// Chebyshev (jacobi false) of `degree` steps or `degree` Jacobi sweeps of weight
    /// 4 / (3 lambda_max) (jacobi true), for a with inverse diagonal dinv; upper is the upper
    /// end of the interval (an estimate of lambda_max with its margin).
    /// range: the Chebyshev interval is [upper / range, upper].
    PolynomialSmoother(const LinearOperator<V>& a, const Array<V>& dinv, double upper, int degree,
                       bool jacobi, double range = chebyshev_range);

    /// Smooths a x = b: x improved in place (zero_guess: x is taken as zero and not read).
    /// ax and d are work vectors of a.rows() entries.
    void smooth(const Array<V>& b, Array<V>& x, bool zero_guess, Array<V>& ax, Array<V>& d) const;

    /// SpMVs of one smoothing (degree, one fewer from a zero guess).
    int spmvs(bool zero_guess) const { return static_cast<int>(c_d_.size()) - (zero_guess ? 1 : 0); }

private:
    const LinearOperator<V>* a_;
    const Array<V>* dinv_;
    std::vector<V> c_d_, c_r_;  ///< step k: d = c_d[k] d + c_r[k] D^-1 (b - A x); x += d
};

}  // namespace gpufem
