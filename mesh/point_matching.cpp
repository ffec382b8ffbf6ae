#include "mesh/point_matching.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace gpufem {
namespace {

/// A uniform grid of buckets over a box, about one given point per bucket.
struct BucketGrid {
    double low[3] = {0, 0, 0};
    double width = 1;
    long long cells[3] = {1, 1, 1};

    /// The bucket coordinates of x (clamped to the grid).
    std::array<long long, 3> bucket(const double* x) const
    {
        std::array<long long, 3> b{};
        for (int a = 0; a < 3; ++a)
            b[a] = std::clamp(static_cast<long long>(std::floor((x[a] - low[a]) / width)), 0LL, cells[a] - 1);
        return b;
    }
    long long key(const std::array<long long, 3>& b) const { return (b[2] * cells[1] + b[1]) * cells[0] + b[0]; }
};

BucketGrid bucket_grid(const std::vector<double>& points)
{
    BucketGrid grid;
    double high[3];
    for (int a = 0; a < 3; ++a) grid.low[a] = high[a] = points.empty() ? 0.0 : points[static_cast<std::size_t>(a)];
    for (std::size_t p = 0; p < points.size(); p += 3)
        for (int a = 0; a < 3; ++a) {
            grid.low[a] = std::min(grid.low[a], points[p + a]);
            high[a] = std::max(high[a], points[p + a]);
        }
    double extent = 0;
    int spread = 0;  // the axes the points spread along
    for (int a = 0; a < 3; ++a)
        if (high[a] > grid.low[a]) extent = std::max(extent, high[a] - grid.low[a]), ++spread;
    const double n = static_cast<double>(points.size() / 3);
    grid.width = extent > 0 ? extent / std::max(1.0, std::pow(n, 1.0 / std::max(spread, 1))) : 1.0;
    for (int a = 0; a < 3; ++a)
        grid.cells[a] = std::min<long long>(1 << 20, static_cast<long long>((high[a] - grid.low[a]) / grid.width) + 1);
    return grid;
}

}  // namespace

std::vector<long long> match_points(const std::vector<double>& given, const std::vector<double>& wanted,
                                    const std::vector<double>& tolerance)
{
    const BucketGrid grid = bucket_grid(given);
    std::vector<std::pair<long long, long long>> sorted;  // (bucket key, given point)
    for (std::size_t p = 0; p < given.size() / 3; ++p)
        sorted.emplace_back(grid.key(grid.bucket(&given[3 * p])), static_cast<long long>(p));
    std::sort(sorted.begin(), sorted.end());
    std::vector<long long> match(wanted.size() / 3, -1);
    for (std::size_t q = 0; q < match.size(); ++q) {
        const double* x = &wanted[3 * q];
        const double tol = tolerance[q];
        double low[3], high[3];
        for (int a = 0; a < 3; ++a) low[a] = x[a] - tol, high[a] = x[a] + tol;
        const std::array<long long, 3> from = grid.bucket(low), to = grid.bucket(high);
        double best = tol * tol;
        for (long long k = from[2]; k <= to[2]; ++k)
            for (long long j = from[1]; j <= to[1]; ++j)
                for (long long i = from[0]; i <= to[0]; ++i) {
                    const long long key = grid.key({i, j, k});
                    auto at = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(key, -1LL));
                    for (; at != sorted.end() && at->first == key; ++at) {
                        const double* y = &given[3 * static_cast<std::size_t>(at->second)];
                        const double d = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                                         (x[2] - y[2]) * (x[2] - y[2]);
                        if (d <= best) best = d, match[q] = at->second;
                    }
                }
    }
    return match;
}

}  // namespace gpufem
