#include "assembly/flux_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

template <int DIM, typename V>
__global__ void cell_kernel(ElementArgs<V> a, const V* __restrict__ u, double* __restrict__ mean_flux,
                            double* __restrict__ integrals)
{
    const long long e = thread_index();
    if (e < a.num_cells)
        cell_flux_and_integrals<DIM>(a, static_cast<index_type>(e), u, mean_flux + 3 * e, integrals + 5 * e);
}

template <int DIM, typename V>
__global__ void node_kernel(ElementArgs<V> a, const V* __restrict__ u, double* __restrict__ sum,
                            double* __restrict__ weight)
{
    const long long e = thread_index();
    if (e >= a.num_cells) return;
    for (int k = 0; k < a.num_points; ++k) {
        const PointSolution p = point_flux<DIM>(a, static_cast<index_type>(e), k, u);
        const long long node = a.cells[e * a.nodes_per_cell + k];
        for (int d = 0; d < 3; ++d) atomicAdd(sum + 3 * node + d, p.measure * p.flux[d]);
        atomicAdd(weight + node, p.measure);
    }
}

}  // namespace

template <typename V>
void cell_flux_integrals(const Executor& exec, const ElementData<V>& data, const V* u, double* mean_flux, double* integrals)
{
    const ElementArgs<V> a = data.args();
    if (a.num_cells == 0) return;
    dispatch_dimension(a.dim, [&]<int DIM>() {
        cell_kernel<DIM, V><<<grid_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, u, mean_flux, integrals);
    });
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

template <typename V>
void node_flux_sums(const Executor& exec, const ElementData<V>& data, const V* u, double* sum, double* weight)
{
    const ElementArgs<V> a = data.args();
    if (a.num_cells == 0) return;
    dispatch_dimension(a.dim, [&]<int DIM>() {
        node_kernel<DIM, V><<<grid_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, u, sum, weight);
    });
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(cell_flux_integrals, node_flux_sums)

}  // namespace gpufem::kernels::cuda
