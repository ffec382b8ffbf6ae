#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "linalg/blas1_kernels.hpp"
#include "linalg/cpu/chunked_loops.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void fill(const Executor&, std::size_t n, V value, V* x)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { x[i] = value; });
}

template <typename V>
void axpy(const Executor&, std::size_t n, V alpha, const V* x, V* y)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { y[i] += alpha * x[i]; });
}

template <typename V>
void xpay(const Executor&, std::size_t n, const V* x, V beta, V* y)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { y[i] = x[i] + beta * y[i]; });
}

template <typename V>
void scale(const Executor&, std::size_t n, V alpha, V* x)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { x[i] *= alpha; });
}

template <typename V>
double dot(const Executor&, std::size_t n, const V* x, const V* y)
{
    return chunked_sums<1>(static_cast<long long>(n), [&](long long i, std::array<double, 1>& s) {
        s[0] += static_cast<double>(x[i]) * y[i];
    })[0];
}

/// The largest (Largest) or least magnitude of x, `start` for n = 0: one per chunk, combined
/// in chunk order; a NaN wins over every number.
template <bool Largest, typename V>
double extreme_abs(std::size_t n, const V* x, double start)
{
    const auto pick = [](double a, double best) {
        const bool better = Largest ? a > best : a < best;
        return (better || std::isnan(a)) && !std::isnan(best) ? a : best;
    };
    const long long count = static_cast<long long>(n);
    const long long chunks = (count + loop_chunk - 1) / loop_chunk;
    std::vector<double> partial(static_cast<std::size_t>(chunks), start);
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (long long c = 0; c < chunks; ++c) {
        double best = start;
        const long long end = std::min(c * loop_chunk + loop_chunk, count);
        for (long long i = c * loop_chunk; i < end; ++i) best = pick(std::abs(static_cast<double>(x[i])), best);
        partial[static_cast<std::size_t>(c)] = best;
    }
    double total = start;
    for (const double best : partial) total = pick(best, total);
    return total;
}

template <typename V>
double max_abs(const Executor&, std::size_t n, const V* x)
{
    return extreme_abs<true>(n, x, 0.0);
}

template <typename V>
double min_abs(const Executor&, std::size_t n, const V* x)
{
    return extreme_abs<false>(n, x, std::numeric_limits<double>::infinity());
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(fill, axpy, xpay, scale, dot, max_abs, min_abs)

}  // namespace gpufem::kernels::cpu
