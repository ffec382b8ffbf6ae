#include <algorithm>
#include <atomic>
#include <limits>

#include "mesh/equispaced_kernels.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// out = the 1D matrix applied along one axis of the p^dim lattice (stride of the axis 1, p or
/// p^2; `lines` lattice lines along it).
void contract_axis(const double* line, int p, int stride, int lines, const double* in, double* out)
{
    for (int l = 0; l < lines; ++l) {
        const int base = (l / stride) * stride * p + l % stride;  // line l's first value
        for (int i = 0; i < p; ++i) {
            const double* row = line + i * p;
            double sum = 0.0;
            for (int m = 0; m < p; ++m) sum += row[m] * in[base + m * stride];
            out[base + i * stride] = sum;
        }
    }
}

/// values (p^dim, x fastest) with the 1D matrix applied along every axis; scratch as large.
void contract_every_axis(const EquispacedArgs& a, double* values, double* scratch)
{
    const int p = a.points, lines = a.dim == 2 ? p : p * p;
    double* in = values;
    double* out = scratch;
    for (int axis = 0, stride = 1; axis < a.dim; ++axis, stride *= p) {
        contract_axis(a.line, p, stride, lines, in, out);
        std::swap(in, out);
    }
    if (in != values) std::copy_n(in, lines * p, values);
}

}  // namespace

void first_cells_of_nodes(const Executor&, const index_type* cells, int nodes_per_cell, long long num_cells,
                          long long num_nodes, index_type* owner)
{
    constexpr index_type none = std::numeric_limits<index_type>::max();
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long long n = 0; n < num_nodes; ++n) owner[n] = none;
#pragma omp for schedule(static)
        for (long long c = 0; c < num_cells; ++c)
            for (int k = 0; k < nodes_per_cell; ++k) {
                std::atomic_ref<index_type> first(owner[cells[c * nodes_per_cell + k]]);
                index_type seen = first.load(std::memory_order_relaxed);
                while (c < seen &&
                       !first.compare_exchange_weak(seen, static_cast<index_type>(c), std::memory_order_relaxed)) {
                }
            }
#pragma omp for schedule(static)
        for (long long n = 0; n < num_nodes; ++n)
            if (owner[n] == none) owner[n] = -1;
    }
}

template <typename T>
void equispaced_values(const Executor&, const EquispacedArgs& a, const T* in, T* out, int stride, int components)
{
    const int npe = a.nodes_per_cell;
#pragma omp parallel
    {
        constexpr int most = equispaced_max_points * equispaced_max_points * equispaced_max_points;
        double values[most], scratch[most];
#pragma omp for schedule(static)
        for (long long c = 0; c < a.num_cells; ++c) {
            const index_type* cell = a.cells + c * npe;
            for (int s = 0; s < components; ++s) {
                for (int i = 0; i < npe; ++i)
                    values[a.lexicographic[i]] = static_cast<double>(in[static_cast<long long>(cell[i]) * stride + s]);
                contract_every_axis(a, values, scratch);
                for (int i = 0; i < npe; ++i)
                    if (a.owner[cell[i]] == c)
                        out[static_cast<long long>(cell[i]) * stride + s] = static_cast<T>(values[a.lexicographic[i]]);
            }
        }
#pragma omp for schedule(static)
        for (long long n = 0; n < a.num_nodes; ++n)
            if (a.owner[n] < 0)
                for (int s = 0; s < components; ++s) out[n * stride + s] = in[n * stride + s];
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(equispaced_values)

}  // namespace gpufem::kernels::cpu
