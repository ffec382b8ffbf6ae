#pragma once
// Shared by the issue-14 tests (test_external_systems, test_external_systems_gpu): a case
// whose matrix is not a stencil and a comparison of solutions.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpufem::test {

/// A P2 manufactured problem on triangles with a variable kappa, so that the matrix is not a
/// stencil; element size h.
inline std::string square_p2_case(double h)
{
    return "mesh: {shape: unit_square, elements: triangle, size: " + std::to_string(h) + "}\n"
           "degree: 2\n"
           "problem:\n"
           "  kappa: \"1 + x*y\"\n"
           "  f: \"2*pi^2*sin(pi*x)*sin(pi*y)\"\n"
           "  dirichlet: {boundary: \"x + y\"}\n"
           "solver: {tolerance: 1e-11, max_iterations: 5000}\n";
}

/// The largest |a_i - b_i| / max |b| (checks the sizes agree).
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b)
{
    EXPECT_EQ(a.size(), b.size());
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        diff = std::max(diff, std::abs(a[i] - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

}  // namespace gpufem::test
