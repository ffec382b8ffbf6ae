#include "mesh/mesh_size_guard.hpp"

#include <limits>
#include <sstream>

#include "linalg/host_memory.hpp"
#include "linalg/types.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {

void check_mesh_estimate(const std::string& context, int refine,
                         const std::function<MeshEstimate(int)>& estimate)
{
    const double memory = static_cast<double>(physical_host_bytes());
    const auto fits = [&](int r) {
        const MeshEstimate e = estimate(r);
        const double limit = std::numeric_limits<index_type>::max();
        return e.cells <= limit && e.nodes <= limit && e.cell_entries <= limit &&
               e.host_bytes < 0.8 * memory;
    };
    if (fits(refine)) return;
    const MeshEstimate e = estimate(refine);
    std::ostringstream limits;
    limits.precision(3);
    limits << "(about " << e.host_bytes / 1e9 << " GB on the host; this machine has "
           << memory / 1e9 << " GB, and cell and node indices are 32-bit)";
    std::ostringstream text;
    text.precision(3);
    text << context << ": ";
    if (refine > 0 && fits(0)) {
        int largest = 0;
        while (largest + 1 < refine && fits(largest + 1)) ++largest;
        text << "refine " << refine << " would make about " << e.cells << " cells from the "
             << static_cast<long long>(estimate(0).cells) << " of the unrefined mesh "
             << limits.str() << "; refine " << largest << " is the most that fits";
    } else {
        text << e.cells << " cells";
        if (e.nodes > 0) text << " with " << e.nodes << " nodes";
        text << " " << limits.str() << " are too many; use a larger mesh.size";
    }
    throw MeshTooLargeError(text.str());
}

}  // namespace gpufem
