#pragma once
// Internal to mesh/: the size guard of refined and generated meshes: their counts must fit
// 32-bit indices and their host arrays 80% of the machine's physical memory, checked before
// anything is allocated.
#include <functional>
#include <string>

namespace gpufem {

/// What a mesh would hold after some number of refinements.
struct MeshEstimate {
    double cells = 0;
    double nodes = 0;         ///< 0 when not estimated
    double cell_entries = 0;  ///< cells x nodes per cell (0 when not estimated)
    double host_bytes = 0;    ///< host memory needed to build and hold the mesh
};

/// Throws MeshTooLargeError naming `context` unless estimate(refine) fits: with the estimate and
/// the largest refinement that fits, or, when not even estimate(0) fits, asking for a larger
/// mesh.size.
void check_mesh_estimate(const std::string& context, int refine,
                         const std::function<MeshEstimate(int)>& estimate);

}  // namespace gpufem
