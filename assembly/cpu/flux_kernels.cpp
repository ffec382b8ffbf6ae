#include "assembly/flux_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void cell_flux_integrals(const Executor&, const ElementData<V>& data, const V* u, const index_type* cell_of,
                         long long stride, double* mean_flux, double* integrals)
{
    const ElementArgs<V> a = data.args();
    dispatch_dimension(a.dim, [&]<int DIM>() {
#pragma omp parallel for schedule(static)
        for (index_type e = 0; e < a.num_cells; ++e) {
            const long long m = cell_of ? cell_of[e] : e;
            cell_flux_and_integrals<DIM>(a, e, u, stride, mean_flux + m, integrals + m);
        }
    });
}

double region_sum(const Executor&, long long n, const int* region, int tag, const double* values)
{
    // Fixed chunks summed in parallel, then in chunk order: the same sum on any thread count.
    constexpr long long chunks = 256;
    double partial[chunks] = {};
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < chunks; ++k) {
        const long long first = n * k / chunks, last = n * (k + 1) / chunks;
        double sum = 0;
        for (long long c = first; c < last; ++c)
            if (!region || region[c] == tag) sum += values[c];
        partial[k] = sum;
    }
    double total = 0;
    for (const double p : partial) total += p;
    return total;
}

template <typename V>
void node_flux_sums(const Executor&, const ElementData<V>& data, const V* u, double* sum, double* weight)
{
    const ElementArgs<V> a = data.args();
    dispatch_dimension(a.dim, [&]<int DIM>() {
        for (index_type e = 0; e < a.num_cells; ++e)
            for (int k = 0; k < a.num_points; ++k) {
                const PointSolution p = point_flux<DIM>(a, e, k, u);
                const long long node = a.cells[static_cast<long long>(e) * a.nodes_per_cell + k];
                for (int d = 0; d < 3; ++d) sum[3 * node + d] += p.measure * p.flux[d];
                weight[node] += p.measure;
            }
    });
}

void mark_dirichlet_group(const Executor&, const index_type* nodes, long long count, int group, int* owner,
                          std::uint8_t* mask)
{
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < count; ++k)
        if (const index_type node = nodes[k]; node >= 0) owner[node] = group, mask[node] = 1;
}

template <typename V>
void subtract_load(const Executor&, long long n, const V* load, double* residual)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) residual[i] -= static_cast<double>(load[i]);
}

void node_flux_means(const Executor&, long long n, int dim, const double* sum, const double* weight, double* columns)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) columns[d * n + i] = weight[i] > 0 ? sum[3 * i + d] / weight[i] : 0.0;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(cell_flux_integrals, node_flux_sums, subtract_load)

}  // namespace gpufem::kernels::cpu
