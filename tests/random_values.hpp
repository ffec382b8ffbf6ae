#pragma once
// Random test data, and the comparison of results, shared by the test folders.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpufem::test {

/// A fresh random seed for a test's random inputs (GPUFEM_TEST_SEED replays a given one),
/// printed and recorded with the test so that a failure can be replayed.
inline unsigned random_seed()
{
    const char* fixed = std::getenv("GPUFEM_TEST_SEED");
    const unsigned seed = fixed ? static_cast<unsigned>(std::stoul(fixed)) : std::random_device{}();
    std::cout << "[ seed     ] " << seed << " (replay with GPUFEM_TEST_SEED=" << seed << ")\n";
    ::testing::Test::RecordProperty("seed", std::to_string(seed));
    return seed;
}

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

/// max |a - b| / max |b| over two equally long vectors.
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b)
{
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(a[i] - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

/// max |a - b| / max |b| over two equally long vectors of any value type (0 / 0 is 0).
template <typename V>
double max_rel_diff(const std::vector<V>& a, const std::vector<V>& b)
{
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return diff / std::max(scale, 1e-300);
}

}  // namespace gpufem::test
