#include <cmath>
#include <cstdint>

#include "assembly/boundary_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
long long set_dirichlet_values(const Executor&, const ExprInstruction* program,
                               const double* coordinates, const index_type* nodes, index_type n,
                               std::uint8_t* mask, V* values)
{
    long long first = -1;
    for (index_type k = 0; k < n; ++k) {
        const double* x = coordinates + 3 * static_cast<long long>(nodes[k]);
        const double value = evaluate_program(program, x[0], x[1], x[2]);
        if (!std::isfinite(value) && first < 0) first = k;
        mask[nodes[k]] = 1;
        values[nodes[k]] = static_cast<V>(value);
    }
    return first;
}

template <typename V>
long long add_neumann_load(const Executor&, const ExprInstruction* program,
                           const double* coordinates, const index_type* facet_nodes,
                           index_type num_facets, const FacetTables& t, V* rhs)
{
    const int npf = t.nodes_per_facet, nq = t.num_points;
    for (index_type f = 0; f < num_facets; ++f) {
        const index_type* nodes = facet_nodes + static_cast<long long>(f) * npf;
        for (int q = 0; q < nq; ++q) {
            double x[3];
            const double measure = facet_point(t, coordinates, nodes, q, x);
            const double value = evaluate_program(program, x[0], x[1], x[2]);
            if (!std::isfinite(value)) return static_cast<long long>(f) * nq + q;
            const double w = t.weights[q] * measure * value;
            for (int i = 0; i < npf; ++i)
                rhs[nodes[i]] += static_cast<V>(w * t.values[q * npf + i]);
        }
    }
    return -1;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(set_dirichlet_values, add_neumann_load)

}  // namespace gpufem::kernels::cpu
