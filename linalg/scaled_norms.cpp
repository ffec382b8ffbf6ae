#include "linalg/scaled_norms.hpp"

#include <algorithm>

#include "linalg/blas1.hpp"

namespace gpufem {
namespace {

/// Exponents of largest magnitude between which a sum of squares in double is exact enough
/// and finite for any vector length below 2^100.
constexpr int square_low = -400;
constexpr int square_high = 400;

/// The exponent e with largest in [2^(e-1), 2^e), or 0 when the squares are safe as they are.
int norm_exponent(double largest)
{
    const int e = std::ilogb(largest) + 1;
    return e - 1 >= square_low && e <= square_high ? 0 : e;
}

}  // namespace

template <typename V>
void scale_by_power_of_two(int k, Array<V>& x)
{
    if (k == 0) return;
    // 2^k may itself lie outside V's range (float, |k| > 126): two steps then.
    const int first = k / 2;
    scale(static_cast<V>(std::ldexp(1.0, first)), x);
    scale(static_cast<V>(std::ldexp(1.0, k - first)), x);
}

template <typename V>
double scaled_nrm2(const Array<V>& x)
{
    const double largest = max_abs(x);
    if (!(largest > 0) || !std::isfinite(largest)) return largest;
    const int e = norm_exponent(largest);
    if (e == 0) return nrm2(x);
    Array<V> scaled = x.clone_to(x.executor());
    scale_by_power_of_two(-e, scaled);
    return std::ldexp(nrm2(scaled), e);
}

double scaled_nrm2(const double* x, std::size_t n)
{
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = std::abs(x[i]);
        if (std::isnan(a)) return a;
        largest = std::max(largest, a);
    }
    if (!(largest > 0) || !std::isfinite(largest)) return largest;
    const int e = norm_exponent(largest);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = std::ldexp(x[i], -e);
        sum += v * v;
    }
    return std::ldexp(std::sqrt(sum), e);
}

template void scale_by_power_of_two(int, Array<float>&);
template void scale_by_power_of_two(int, Array<double>&);
template double scaled_nrm2(const Array<float>&);
template double scaled_nrm2(const Array<double>&);

}  // namespace gpufem
