#pragma once
// Matching two sets of points that should coincide (cell centroids of two files on the same
// mesh), whatever their order, through buckets of a uniform grid.
#include <vector>

namespace gpufem {

/// For each point q of `wanted` (3 coordinates each), the index of the point of `given`
/// within tolerance[q] of it, or -1 when there is none; given points closest first when
/// several are near. Expected time linear in the number of points.
std::vector<long long> match_points(const std::vector<double>& given, const std::vector<double>& wanted,
                                    const std::vector<double>& tolerance);

}  // namespace gpufem
