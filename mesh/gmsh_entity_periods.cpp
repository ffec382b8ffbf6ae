#include "mesh/gmsh_entity_periods.hpp"

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

}  // namespace gpufem
