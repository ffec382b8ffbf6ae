#pragma once
// Random test data shared by the test folders.
#include <random>
#include <vector>

namespace gpufem::test {

/// n values uniform in [-1, 1] from a seeded generator (the same values every run).
template <typename V>
std::vector<V> random_vector(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<V> v(n);
    for (V& value : v) value = static_cast<V>(dist(rng));
    return v;
}

}  // namespace gpufem::test
