#include "assembly/coefficient_kernels.hpp"

#include <algorithm>
#include <climits>
#include <vector>

namespace gpufem::kernels::cpu {

template <typename V>
long long evaluate_coefficient_piece(const Executor&, const ExprInstruction* program, const CoefficientPoints& at,
                                     int tag, int components, int component, ValueCheck check, V* out)
{
    const long long cells = at.num_cells;
    const int per_cell = at.per_cell;
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) {
        if (tag >= 0 && at.region && at.region[c] != tag) continue;
        for (int q = 0; q < per_cell; ++q) {
            double p[3];
            coefficient_point(at, c, q, p);
            out[(c * per_cell + q) * components + component] = static_cast<V>(evaluate_program(program, p[0], p[1], p[2]));
        }
    }
    if (check == ValueCheck::none) return -1;
    for (long long c = 0; c < cells; ++c) {
        if (tag >= 0 && at.region && at.region[c] != tag) continue;
        for (int q = 0; q < per_cell; ++q)
            if (!passes(check, static_cast<double>(out[(c * per_cell + q) * components + component]))) return c * per_cell + q;
    }
    return -1;
}

template <typename V>
void spread_cell_values(const Executor&, const double* values, const CoefficientPoints& at, int tag, int components,
                        V* out)
{
    const long long cells = at.num_cells;
    const int per_cell = at.per_cell;
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) {
        if (tag >= 0 && at.region && at.region[c] != tag) continue;
        for (int q = 0; q < per_cell; ++q)
            for (int k = 0; k < components; ++k)
                out[(c * per_cell + q) * components + k] = static_cast<V>(values[c] * cell_value_component(k, components));
    }
}

template <typename V>
long long first_indefinite_tensor(const Executor&, const V* values, long long points, int dim)
{
    const int n = dim * (dim + 1) / 2;
    for (long long k = 0; k < points; ++k)
        if (!positive_definite_tensor(values + k * n, dim)) return k;
    return -1;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(evaluate_coefficient_piece, spread_cell_values, first_indefinite_tensor)

void mark_present_tags(const Executor&, long long n, const int* region, const int* tags, int m, std::uint8_t* present)
{
#pragma omp parallel
    {
        std::vector<std::uint8_t> seen(static_cast<std::size_t>(m) + 1, 0);
        int last = INT_MIN;  // a region's cells mostly follow each other: one search per run of them
#pragma omp for schedule(static) nowait
        for (long long c = 0; c < n; ++c) {
            if (region[c] == last) continue;
            last = region[c];
            const int* at = std::lower_bound(tags, tags + m, last);
            seen[at != tags + m && *at == last ? static_cast<std::size_t>(at - tags) : static_cast<std::size_t>(m)] = 1;
        }
#pragma omp critical
        for (int k = 0; k <= m; ++k) present[k] |= seen[static_cast<std::size_t>(k)];
    }
}

}  // namespace gpufem::kernels::cpu
