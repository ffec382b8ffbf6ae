#pragma once
// Sizes of vectors that neither underflow nor overflow: a 2-norm formed from values scaled
// by a power of two (as LAPACK's nrm2 scales), and the power-of-two equilibration that brings
// a system's data well inside the range of its value type before a solve. Powers of two
// scale exactly, so data already inside the range is left as it is, bit for bit.
#include <cmath>

#include "linalg/array.hpp"

namespace gpufem {

/// The exponents between which data of type V is left unscaled: a vector whose largest
/// magnitude m has 2^low <= m < 2^high keeps its squares and its products with a matrix of
/// the same band well inside V's range (and the squares, accumulated in double, inside
/// double's).
template <typename V>
struct SafeBand {
    static constexpr int low = sizeof(V) == 4 ? -40 : -200;
    static constexpr int high = sizeof(V) == 4 ? 40 : 200;
};

/// The k for which data of largest magnitude largest, scaled by 2^k, lies in [1/2, 1); 0
/// when largest is already inside SafeBand<V> (or is zero or not finite: nothing to scale).
template <typename V>
int equilibration_exponent(double largest)
{
    if (!(largest > 0) || !std::isfinite(largest)) return 0;
    const int e = std::ilogb(largest) + 1;  // largest in [2^(e-1), 2^e)
    return e - 1 >= SafeBand<V>::low && e <= SafeBand<V>::high ? 0 : -e;
}

/// x = 2^k x, exactly (as long as no value leaves V's range); nothing when k = 0.
template <typename V>
void scale_by_power_of_two(int k, Array<V>& x);

/// ||x||_2 without underflow or overflow: max |x_i| first, then the square root of the sum
/// of squares of the values divided by the power of two near it, times that power. The same
/// value as nrm2 (bit for bit) when x is inside the safe band; NaN or infinity when x holds
/// one.
template <typename V>
double scaled_nrm2(const Array<V>& x);

/// The same for values on the host.
double scaled_nrm2(const double* x, std::size_t n);

}  // namespace gpufem
