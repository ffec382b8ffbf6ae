#include "assembly/coefficient_kernels.hpp"

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

}  // namespace gpufem::kernels::cpu
