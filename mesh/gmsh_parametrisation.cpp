#include "mesh/gmsh_parametrisation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gmsh.h>

namespace gpufem {

std::array<double, 2> parametrisation_periods(int dim, int tag)
{
    std::array<double, 2> period{0, 0};
    std::vector<double> low, high;
    gmsh::model::getParametrizationBounds(dim, tag, low, high);
    if (low.size() != static_cast<std::size_t>(dim) || high.size() != low.size()) return period;
    for (int d = 0; d < dim; ++d) {
        std::vector<double> ends, points;
        for (const double x : {low[d], high[d]}) {
            std::array<double, 2> p{0, 0};
            p[static_cast<std::size_t>(d)] = x;
            if (dim == 2) p[static_cast<std::size_t>(1 - d)] = 0.5 * (low[1 - d] + high[1 - d]);
            ends.insert(ends.end(), p.begin(), p.begin() + dim);
        }
        gmsh::model::getValue(dim, tag, ends, points);
        if (points.size() != 6) continue;
        const double scale = std::max({1.0, std::abs(points[0]), std::abs(points[1]), std::abs(points[2])});
        const double gap = std::hypot(points[0] - points[3], points[1] - points[4], points[2] - points[5]);
        if (gap <= 1e-9 * scale) period[static_cast<std::size_t>(d)] = high[d] - low[d];
    }
    return period;
}

std::vector<int> degenerate_directions(int dim, int tag, const std::vector<double>& parameters)
{
    std::vector<double> derivatives;
    gmsh::model::getDerivative(dim, tag, parameters, derivatives);
    const std::size_t per = 3 * static_cast<std::size_t>(dim), points = parameters.size() / static_cast<std::size_t>(dim);
    if (derivatives.size() != points * per) return {};
    std::vector<int> out(points, -1);
    for (std::size_t i = 0; i < points; ++i) {
        double norms[2] = {0, 0};
        for (std::size_t d = 0; d < static_cast<std::size_t>(dim); ++d)
            for (std::size_t c = 0; c < 3; ++c) norms[d] += derivatives[i * per + 3 * d + c] * derivatives[i * per + 3 * d + c];
        const double largest = std::max(norms[0], norms[1]);
        if (largest == 0) out[i] = 2;
        else if (dim == 2 && std::min(norms[0], norms[1]) < 1e-12 * largest) out[i] = norms[0] < norms[1] ? 0 : 1;
    }
    return out;
}

}  // namespace gpufem
