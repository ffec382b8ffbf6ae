#pragma once
// Internal to mesh/: removal of elements listed more than once.
#include <vector>

#include "linalg/host_vector.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Removes every element whose node set equals that of an earlier element, keeping the first
/// and the order of the rest. `per_element` (may be null) holds one value per element and is
/// filtered alike. Returns the number of elements removed. (Gmsh's MSH 2 files list an element
/// once per physical group it belongs to; reading such a file gives the copies back.)
/// Connectivity: std::vector<index_type> or HostVector<index_type>.
template <typename Connectivity>
std::size_t drop_repeated_elements(Connectivity& connectivity, int nodes_per_element,
                                   std::vector<int>* per_element);

}  // namespace gpufem
