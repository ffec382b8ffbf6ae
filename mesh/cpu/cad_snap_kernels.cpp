#include <atomic>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/cad_snap_kernels.hpp"

namespace gpufem::kernels::cpu {

long long snap_facet_nodes(const Executor&, const CadSnapView& view, const double* from, double* to)
{
    std::atomic<long long> unmatched{0};
    chunked_for(view.num_facets, [&](long long f) {
        const long long coarse = f / view.children;
        for (int i = 0; i < view.nodes_per_facet; ++i) {
            const index_type n = view.facets[f * view.nodes_per_facet + i];
            if (n < 0) continue;  // a triangle's row among quadrilaterals
            const int k = nearest_lattice_point(view, coarse, from + 3 * static_cast<long long>(n));
            if (k < 0) {
                unmatched.fetch_add(1, std::memory_order_relaxed);
                continue;
            }
            const double* cad = view.cad_points + 3 * (coarse * view.lattice_points + k);
            for (int c = 0; c < 3; ++c) to[3 * static_cast<long long>(n) + c] = cad[c];
        }
    });
    return unmatched.load();
}

}  // namespace gpufem::kernels::cpu
