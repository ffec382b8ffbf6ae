#include "solver/krylov/equilibration.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "linalg/blas1.hpp"
#include "linalg/scaled_norms.hpp"

namespace gpufem {
namespace {

/// The largest of every process's value (positive or NaN): exact on one process; on several,
/// their sum, within a factor of the process count of the largest, which is all a choice of
/// exponent needs (scaled by 2^-64 first, so that the sum does not overflow).
double largest_over_processes(const Communicator& comm, double value)
{
    if (!comm.reduces()) return value;
    return std::ldexp(sum_over_processes(comm, std::ldexp(value, -64)), 64);
}

/// The first row of x whose value is NaN or infinite, -1 when none.
template <typename V>
long long first_not_finite(const Array<V>& x)
{
    const std::vector<V> values = x.to_host();
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) return static_cast<long long>(i);
    return -1;
}

}  // namespace

bool SolveData::finite() const
{
    return std::isfinite(rhs_largest) && std::isfinite(guess_largest);
}

template <typename V>
SolveData measure_solve_data(const Array<V>& b, const Array<V>& x, const Communicator& comm)
{
    SolveData data;
    data.rhs_largest = largest_over_processes(comm, max_abs(b));
    data.guess_largest = largest_over_processes(comm, max_abs(x));
    if (!data.finite()) return data;
    data.exponent = equilibration_exponent<V>(data.rhs_largest);
    // A guess far larger than b would leave the band once scaled: then both are scaled by
    // the exponent that brings the guess to [1/2, 1).
    if (data.exponent != 0 && data.guess_largest > 0 &&
        std::ilogb(data.guess_largest) + data.exponent >= SafeBand<V>::high)
        data.exponent = -(std::ilogb(data.guess_largest) + 1);
    return data;
}

template <typename V>
std::string not_finite_data_message(const SolveData& data, const Array<V>& b, const Array<V>& x)
{
    const bool rhs = !std::isfinite(data.rhs_largest);
    const long long row = first_not_finite(rhs ? b : x);
    return fmt::format("data not finite: the {} has NaN or Inf{} (check the case's expressions "
                       "and files{})",
                       rhs ? "right-hand side" : "initial guess",
                       row >= 0 ? fmt::format(" (first at row {})", row) : std::string(),
                       sizeof(V) == 4 ? "; float holds magnitudes up to 3.4e38: use precision: double for "
                                        "larger data"
                                      : "");
}

template <typename V>
std::string overflow_message(const SolveData& data)
{
    const bool single = sizeof(V) == 4;
    return fmt::format("the right-hand side and initial guess are finite (max |b| = {:.3e}), so "
                       "either the matrix holds NaN or Inf, or the values (or the solution) overflowed {}'s range "
                       "(about {:.1e}): scale your data (kappa, f, the boundary values or the "
                       "matrix file) nearer to 1{}",
                       data.rhs_largest, single ? "float" : "double",
                       static_cast<double>(std::numeric_limits<V>::max()),
                       single ? ", or use precision: double" : "");
}

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template SolveData measure_solve_data(const Array<V>&, const Array<V>&, const Communicator&); \
    template std::string not_finite_data_message(const SolveData&, const Array<V>&, const Array<V>&); \
    template std::string overflow_message<V>(const SolveData&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
