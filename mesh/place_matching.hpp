#pragma once
// Finding the same places in two point clouds (two results' points or cell centres written in
// different orders, such as a run across ranks' pieces and one process's file), via VTK.
#include <vector>

namespace gpufem {

/// For each place of `from` (3 coordinates each), the index of the closest place of `to`
/// within `tolerance` (Euclidean), or -1 where there is none. VTK's static point locator on
/// `to`, queried on the host's threads.
std::vector<long long> closest_places_within(const std::vector<double>& from, const std::vector<double>& to,
                                             double tolerance);

}  // namespace gpufem
