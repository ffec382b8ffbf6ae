#pragma once
// Test systems for the Krylov solvers: SPD and non-symmetric finite-difference matrices on a
// grid (badly scaled on request, so that Jacobi matters), random right-hand sides.
#include <cmath>
#include <random>
#include <vector>

#include "linalg/csr.hpp"
#include "random_values.hpp"

namespace gpufem::test {

/// -Laplace (5-point) + b . grad (central differences, b = (bx, by) per unit h) + shift on an
/// nx x ny grid with Dirichlet boundaries eliminated; b = 0 gives an SPD matrix (a shift > 0
/// improves its conditioning: short, smooth convergence). With
/// scale_spread > 0 the matrix becomes D A D with D_ii in [1, 10^scale_spread] (still SPD when
/// b = 0): plain CG needs many more iterations, Jacobi undoes the scaling.
template <typename V>
Csr<V> grid_matrix(const ExecPtr& exec, int nx, int ny, double bx = 0, double by = 0,
                   double shift = 0, double scale_spread = 0, unsigned seed = 7)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    const int n = nx * ny;
    std::vector<double> d(n);
    for (double& v : d) v = std::pow(10.0, scale_spread * unit(rng));
    std::vector<index_type> ptr{0}, col;
    std::vector<V> val;
    const auto add = [&](int i, int j, double a) {
        col.push_back(j);
        val.push_back(static_cast<V>(d[i] * a * d[j]));
    };
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            const int i = y * nx + x;
            if (y > 0) add(i, i - nx, -1 - by / 2);
            if (x > 0) add(i, i - 1, -1 - bx / 2);
            add(i, i, 4 + shift);
            if (x + 1 < nx) add(i, i + 1, -1 + bx / 2);
            if (y + 1 < ny) add(i, i + nx, -1 + by / 2);
            ptr.push_back(static_cast<index_type>(col.size()));
        }
    return Csr<V>{n, n, Array<index_type>::from_host(exec, ptr),
                  Array<index_type>::from_host(exec, col), Array<V>::from_host(exec, val)};
}

/// ||a - b|| / ||b|| of two host vectors.
template <typename V>
double relative_difference(const std::vector<V>& a, const std::vector<V>& b)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        den += double(b[i]) * double(b[i]);
    }
    return std::sqrt(num / den);
}

}  // namespace gpufem::test
