#include "mesh/gll_points.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// P_n(x) and P'_n(x) by the three-term recurrence.
void legendre(int n, double x, double& value, double& derivative)
{
    double previous = 1.0, current = x;
    if (n == 0) current = 1.0;
    for (int k = 2; k <= n; ++k) {
        const double next = ((2.0 * k - 1.0) * x * current - (k - 1.0) * previous) / k;
        previous = current;
        current = next;
    }
    value = current;
    // (1 - x^2) P'_n = n (P_{n-1} - x P_n), away from the ends where the points lie.
    derivative = n == 0 ? 0.0 : n * (previous - x * current) / (1.0 - x * x);
}

}  // namespace

std::vector<double> gll_points(int n)
{
    if (n < 2) throw std::invalid_argument("gll_points: " + std::to_string(n) + " points (at least 2)");
    const int p = n - 1;
    std::vector<double> x(static_cast<std::size_t>(n));
    x.front() = -1.0;
    x.back() = 1.0;
    for (int i = 1; i < p; ++i) {
        // Roots of P'_p: Newton on q(x) = P'_p(x), with q' from Legendre's equation,
        // (1 - x^2) P''_p = 2 x P'_p - p (p + 1) P_p.
        double xi = -std::cos(std::numbers::pi * i / p);
        for (int it = 0; it < 100; ++it) {
            double value = 0.0, derivative = 0.0;
            legendre(p, xi, value, derivative);
            const double second = (2.0 * xi * derivative - p * (p + 1.0) * value) / (1.0 - xi * xi);
            const double step = derivative / second;
            xi -= step;
            if (std::abs(step) < 1e-16) break;
        }
        x[static_cast<std::size_t>(i)] = xi;
    }
    for (int i = 0; i < n / 2; ++i) {  // exactly symmetric: mirrored nodes match bit for bit
        const double half = 0.5 * (x[static_cast<std::size_t>(n - 1 - i)] - x[static_cast<std::size_t>(i)]);
        x[static_cast<std::size_t>(i)] = -half;
        x[static_cast<std::size_t>(n - 1 - i)] = half;
    }
    if (n % 2 == 1) x[static_cast<std::size_t>(n / 2)] = 0.0;
    return x;
}

bool has_gll_nodes(ElementType type, int degree)
{
    return cell_shape(type).box && degree >= first_gll_degree;
}

std::vector<double> line_node_positions(int degree)
{
    if (degree < 1) throw std::invalid_argument("line_node_positions: degree " + std::to_string(degree));
    if (degree >= first_gll_degree) return gll_points(degree + 1);
    std::vector<double> x(static_cast<std::size_t>(degree + 1));
    for (int i = 0; i <= degree; ++i) x[static_cast<std::size_t>(i)] = -1.0 + 2.0 * i / degree;
    return x;
}

}  // namespace gpufem
