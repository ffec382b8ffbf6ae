#include <cub/device/device_reduce.cuh>

#include "assembly/flux_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

// The cell and node kernels give each cell a warp, its lanes over the cell's points (125 at
// Q4: one thread per cell would leave the device mostly idle), or, for cells of at most
// points_per_thread_cell points, a thread (a warp would leave most of its lanes idle on the 4
// points of a linear tetrahedron: 11M such cells took 14 ms a warp each, against the solve's 60).
constexpr int points_per_thread_cell = 8;

/// One thread per cell (cells of few points): its sums point after point, as on the CPU.
template <int DIM, typename V>
__global__ void __launch_bounds__(block_size) cell_thread_kernel(ElementArgs<V> a, const V* __restrict__ u,
                                                                 const index_type* __restrict__ cell_of, long long stride,
                                                                 double* __restrict__ mean_flux,
                                                                 double* __restrict__ integrals)
{
    const long long e = thread_index();
    if (e >= a.num_cells) return;
    const long long m = cell_of ? cell_of[e] : e;
    cell_flux_and_integrals<DIM>(a, static_cast<index_type>(e), u, stride, mean_flux + m, integrals + m);
}

template <int DIM, typename V>
__global__ void __launch_bounds__(block_size) cell_kernel(ElementArgs<V> a, const V* __restrict__ u,
                                                          const index_type* __restrict__ cell_of, long long stride,
                                                          double* __restrict__ mean_flux, double* __restrict__ integrals)
{
    const long long e = warp_index();
    if (e >= a.num_cells) return;  // the whole warp
    const int lane = lane_index();
    double sums[cell_sum_count] = {};
    for (int q = lane; q < a.num_points; q += 32) add_point_sums<DIM>(a, static_cast<index_type>(e), q, u, sums);
#pragma unroll
    for (int k = 0; k < cell_sum_count; ++k) sums[k] = warp_sum(sums[k]);
    if (lane != 0) return;
    const long long m = cell_of ? cell_of[e] : e;
    write_cell_sums(sums, stride, mean_flux + m, integrals + m);
}

/// masked[c] = values[c] where region[c] == tag (region null: everywhere), else 0.
__global__ void mask_kernel(long long n, const int* __restrict__ region, int tag, const double* __restrict__ values,
                            double* __restrict__ masked)
{
    const long long c = thread_index();
    if (c < n) masked[c] = !region || region[c] == tag ? values[c] : 0.0;
}

/// The flux of cell e at its node k (the point k of a nodal rule) added into the node's sums.
template <int DIM, typename V>
__device__ void add_node_flux(const ElementArgs<V>& a, long long e, int k, const V* __restrict__ u,
                              double* __restrict__ sum, double* __restrict__ weight)
{
    const PointSolution p = point_flux<DIM>(a, static_cast<index_type>(e), k, u);
    const long long node = a.cells[e * a.nodes_per_cell + k];
    for (int d = 0; d < 3; ++d) atomicAdd(sum + 3 * node + d, p.measure * p.flux[d]);
    atomicAdd(weight + node, p.measure);
}

template <int DIM, typename V>
__global__ void __launch_bounds__(block_size) node_kernel(ElementArgs<V> a, const V* __restrict__ u,
                                                          double* __restrict__ sum, double* __restrict__ weight)
{
    const long long e = warp_index();
    if (e >= a.num_cells) return;
    for (int k = lane_index(); k < a.num_points; k += 32) add_node_flux<DIM>(a, e, k, u, sum, weight);
}

/// One thread per cell (cells of few nodes), node after node.
template <int DIM, typename V>
__global__ void __launch_bounds__(block_size) node_thread_kernel(ElementArgs<V> a, const V* __restrict__ u,
                                                                 double* __restrict__ sum, double* __restrict__ weight)
{
    const long long e = thread_index();
    if (e >= a.num_cells) return;
    for (int k = 0; k < a.num_points; ++k) add_node_flux<DIM>(a, e, k, u, sum, weight);
}

__global__ void mark_kernel(long long count, const index_type* __restrict__ nodes, int group, int* __restrict__ owner,
                            std::uint8_t* __restrict__ mask)
{
    const long long k = thread_index();
    if (k >= count) return;
    if (const index_type node = nodes[k]; node >= 0) owner[node] = group, mask[node] = 1;
}

template <typename V>
__global__ void subtract_kernel(long long n, const V* __restrict__ load, double* __restrict__ residual)
{
    const long long i = thread_index();
    if (i < n) residual[i] -= static_cast<double>(load[i]);
}

__global__ void means_kernel(long long n, int dim, const double* __restrict__ sum, const double* __restrict__ weight,
                             double* __restrict__ columns)
{
    const long long i = thread_index();
    if (i >= n) return;
    const double w = weight[i];
    for (int d = 0; d < dim; ++d) columns[d * n + i] = w > 0 ? sum[3 * i + d] / w : 0.0;
}

}  // namespace

template <typename V>
void cell_flux_integrals(const Executor& exec, const ElementData<V>& data, const V* u, const index_type* cell_of,
                         long long stride, double* mean_flux, double* integrals)
{
    const ElementArgs<V> a = data.args();
    if (a.num_cells == 0) return;
    dispatch_dimension(a.dim, [&]<int DIM>() {
        if (a.num_points <= points_per_thread_cell)
            cell_thread_kernel<DIM, V><<<grid_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, u, cell_of, stride,
                                                                                           mean_flux, integrals);
        else
            cell_kernel<DIM, V><<<warp_grid_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, u, cell_of, stride,
                                                                                         mean_flux, integrals);
    });
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

double region_sum(const Executor& exec, long long n, const int* region, int tag, const double* values)
{
    if (n == 0) return 0.0;
    auto stream = stream_of(exec);
    DeviceBuffer masked(exec, static_cast<std::size_t>(n) * sizeof(double));
    DeviceBuffer total(exec, sizeof(double));
    const double* input = values;
    if (region) {
        mask_kernel<<<grid_for(n), block_size, 0, stream>>>(n, region, tag, values, masked.as<double>());
        GPUFEM_CUDA_CHECK_LAUNCH();
        input = masked.as<double>();
    }
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, input, total.as<double>(), n, stream));
    DeviceBuffer temp(exec, bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(temp.as<void>(), bytes, input, total.as<double>(), n, stream));
    double host = 0.0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, total.as<double>(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

template <typename V>
void node_flux_sums(const Executor& exec, const ElementData<V>& data, const V* u, double* sum, double* weight)
{
    const ElementArgs<V> a = data.args();
    if (a.num_cells == 0) return;
    dispatch_dimension(a.dim, [&]<int DIM>() {
        if (a.num_points <= points_per_thread_cell)
            node_thread_kernel<DIM, V><<<grid_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, u, sum, weight);
        else
            node_kernel<DIM, V><<<warp_grid_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, u, sum, weight);
    });
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

void mark_dirichlet_group(const Executor& exec, const index_type* nodes, long long count, int group, int* owner,
                          std::uint8_t* mask)
{
    if (count == 0) return;
    mark_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(count, nodes, group, owner, mask);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void subtract_load(const Executor& exec, long long n, const V* load, double* residual)
{
    if (n == 0) return;
    subtract_kernel<V><<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, load, residual);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void node_flux_means(const Executor& exec, long long n, int dim, const double* sum, const double* weight, double* columns)
{
    if (n == 0) return;
    means_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, dim, sum, weight, columns);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(cell_flux_integrals, node_flux_sums, subtract_load)

}  // namespace gpufem::kernels::cuda
