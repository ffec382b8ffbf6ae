#pragma once
// A solve's data brought well inside the range of its value type: the right-hand side and
// the initial guess scaled by one power of two before the Krylov iterations and the solution
// scaled back after (exact: only the exponents change), so that tiny or huge but finite data
// neither underflows to "the right-hand side is zero" nor overflows the squared norms. Data
// already inside the range is not touched: its solve is the same bit for bit.
#include <string>

#include "linalg/array.hpp"
#include "linalg/communicator.hpp"

namespace gpufem {

/// What a solve learned about its data before iterating.
struct SolveData {
    double rhs_largest = 0;    ///< max |b_i| over every process
    double guess_largest = 0;  ///< max |x0_i| over every process
    int exponent = 0;          ///< b and x0 are solved as 2^exponent b, 2^exponent x0
    /// Whether both are finite (no NaN, no infinity).
    bool finite() const;
};

/// Measures b and the guess x (over the processes of comm) and chooses the exponent: 0 when b
/// is inside SafeBand<V> (linalg/scaled_norms.hpp), otherwise the one that brings max |b| to
/// [1/2, 1), lowered where the guess would then leave the band.
template <typename V>
SolveData measure_solve_data(const Array<V>& b, const Array<V>& x, const Communicator& comm);

/// "data not finite: the right-hand side has NaN or Inf (first at row 12)" for data that is
/// not finite (the first such row of this process).
template <typename V>
std::string not_finite_data_message(const SolveData& data, const Array<V>& b, const Array<V>& x);

/// Why a solve of finite data produced a non-finite value: the matrix holds NaN/Inf, or the
/// iteration's values overflowed V's range; said with the advice to scale the data (and to
/// use double when V is float).
template <typename V>
std::string overflow_message(const SolveData& data);

}  // namespace gpufem
