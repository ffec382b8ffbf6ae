#pragma once
// Internal to mesh/: the kernel that moves refined boundary nodes onto the CAD points of
// their coarse facets (cad_boundary.hpp), declared once for both backends, and the search
// for a node's lattice point that both share.
#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// The refined facets and their coarse facets' lattices, on the executor.
struct CadSnapView {
    const index_type* facets = nullptr;  ///< nodes_per_facet mesh nodes per refined facet
    long long num_facets = 0;
    int nodes_per_facet = 0;
    long long children = 1;              ///< refined facets per coarse facet (4^r, 2^r)
    int lattice_points = 0;              ///< lattice points per coarse facet
    const double* map_points = nullptr;  ///< x, y, z of each lattice point by the coarse map
    const double* cad_points = nullptr;  ///< x, y, z of each lattice point on the geometry
    const double* tolerance = nullptr;   ///< per coarse facet: the farthest a node may be
};

/// The lattice point of coarse facet `coarse` whose map point is nearest to x and within
/// the facet's tolerance, or -1.
GPUFEM_HOST_DEVICE inline int nearest_lattice_point(const CadSnapView& view, long long coarse, const double* x)
{
    const double* map = view.map_points + 3 * coarse * view.lattice_points;
    int best = -1;
    double best_distance = view.tolerance[coarse] * view.tolerance[coarse];
    for (int k = 0; k < view.lattice_points; ++k) {
        const double dx = x[0] - map[3 * k], dy = x[1] - map[3 * k + 1], dz = x[2] - map[3 * k + 2];
        const double d = dx * dx + dy * dy + dz * dz;
        if (d <= best_distance) {
            best_distance = d;
            best = k;
        }
    }
    return best;
}

#define GPUFEM_KERNEL_LIST "mesh/cad_snap_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
