#include <cub/device/device_reduce.cuh>

#include <climits>
#include <cstdint>

#include "assembly/expression_cell_math.hpp"
#include "assembly/expression_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "assembly/cuda/abs_max.cuh"
#include "assembly/cuda/first_failure.hpp"
#include "linalg/cuda/device_buffer.hpp"
#include "linalg/cuda/launch_shape.cuh"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::block_size;
using gpufem::cuda::grid_for;
using gpufem::cuda::lane_index;
using gpufem::cuda::warp_grid_for;
using gpufem::cuda::warp_index;
using gpufem::cuda::warp_sum;
using gpufem::cuda::DeviceBuffer;
using gpufem::cuda::FirstFailure;

template <typename V>
__global__ void quadrature_points_kernel(const ExprInstruction* __restrict__ program,
                                         ElementArgs<double> a, ValueCheck check, V* __restrict__ out,
                                         unsigned long long* first_failure)
{
    const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (k >= static_cast<long long>(a.num_cells) * a.num_points) return;
    double p[3];
    quadrature_position(a, k / a.num_points, static_cast<int>(k % a.num_points), p);
    const V value = static_cast<V>(evaluate_program(program, p[0], p[1], p[2]));
    out[k] = value;
    if (!passes(check, static_cast<double>(value)))
        atomicMin(first_failure, static_cast<unsigned long long>(k));
}

template <typename V>
__global__ void points_kernel(const ExprInstruction* __restrict__ program,
                              const V* __restrict__ coordinates,
                              const index_type* __restrict__ points, index_type n,
                              ValueCheck check, V* __restrict__ out,
                              unsigned long long* first_failure)
{
    const index_type k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const V* x = coordinates + 3 * static_cast<long long>(points ? points[k] : k);
    const V value = static_cast<V>(evaluate_program(program, x[0], x[1], x[2]));
    out[k] = value;
    if (!passes(check, static_cast<double>(value)))
        atomicMin(first_failure, static_cast<unsigned long long>(k));
}

/// One thread per cell: its three sums into sums[0..cells), [cells..2 cells), [2 cells..).
template <int DIM, typename V>
__global__ void error_integrals_kernel(const ExprInstruction* __restrict__ program,
                                       ElementArgs<double> g, const V* __restrict__ u,
                                       double* __restrict__ sums)
{
    const index_type e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.num_cells) return;
    double s[3] = {0, 0, 0};
    cell_error_sums<DIM>(program, g, e, u, s);
    for (int k = 0; k < 3; ++k) sums[static_cast<long long>(k) * g.num_cells + e] = s[k];
}

/// A warp per cell (the cells of more than largest_cell_in_registers nodes, up to 125 nodes
/// and 216 points), its lanes over the cell's points: each lane sums its points' node terms over
/// all the nodes (the same node read by every lane at once) and evaluates the exact solution
/// once per point; the lanes' sums are added across the warp at the end (lane 0 writes them as
/// error_integrals_kernel does). Each point's terms are those of the CPU's, to the last bit.
template <int DIM, typename V>
__global__ void __launch_bounds__(block_size) warp_error_integrals_kernel(const ExprInstruction* __restrict__ program,
                                                                          ElementArgs<double> g, const V* __restrict__ u,
                                                                          double* __restrict__ sums)
{
    const long long e = warp_index();
    if (e >= g.num_cells) return;  // the whole warp
    const int lane = lane_index(), npe = g.nodes_per_cell;
    const index_type* nodes = g.cells + e * npe;
    const auto x = [&](int i, int c) { return g.coordinates[3 * static_cast<long long>(nodes[i]) + c]; };
    const auto ui = [&](int i) { return static_cast<double>(u[nodes[i]]); };
    double s[3] = {0, 0, 0};
    for (int q = lane; q < g.num_points; q += 32) {
        PointNodeSums point;
        add_point_node_sums<DIM>(g, npe, q, 0, 1, x, ui, point);
        add_point_error_terms<DIM>(program, g, q, point, s);
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) s[k] = warp_sum(s[k]);
    if (lane == 0)
        for (int k = 0; k < 3; ++k) sums[static_cast<long long>(k) * g.num_cells + e] = s[k];
}

template <typename V>
__global__ void nodal_errors_kernel(const ExprInstruction* __restrict__ program,
                                    const double* __restrict__ coordinates, index_type n,
                                    const V* __restrict__ u, double* __restrict__ exact,
                                    double* __restrict__ error)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double* x = coordinates + 3 * static_cast<long long>(i);
    const double value = evaluate_program(program, x[0], x[1], x[2]);
    exact[i] = value;
    error[i] = static_cast<double>(u[i]) - value;
}

/// max(|a|, |b|), NaN if either is NaN (associative and commutative, as CUB needs).

}  // namespace

template <typename V>
long long evaluate_at_quadrature_points(const Executor& exec, const ExprInstruction* program,
                                        const ElementData<double>& geometry, ValueCheck check,
                                        V* out)
{
    const long long n = static_cast<long long>(geometry.num_cells) * geometry.num_points;
    if (n == 0) return -1;
    FirstFailure first(exec);
    quadrature_points_kernel<<<grid_for(n), block_size, 0,
                               static_cast<cudaStream_t>(exec.stream())>>>(
        program, geometry.args(), check, out, first.device());
    GPUFEM_CUDA_CHECK_LAUNCH();
    return first.fetch();
}

template <typename V>
long long evaluate_at_points(const Executor& exec, const ExprInstruction* program,
                             const V* coordinates, const index_type* points, index_type n,
                             ValueCheck check, V* out)
{
    if (n == 0) return -1;
    FirstFailure first(exec);
    points_kernel<<<grid_for(n), block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        program, coordinates, points, n, check, out, first.device());
    GPUFEM_CUDA_CHECK_LAUNCH();
    return first.fetch();
}

template <typename V>
ErrorSums error_integrals(const Executor& exec, const ExprInstruction* program,
                          const ElementData<double>& geometry, const V* u)
{
    const ElementArgs<double> g = geometry.args();
    if (g.num_cells == 0) return {};
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const std::size_t cells = static_cast<std::size_t>(g.num_cells);
    DeviceBuffer sums(exec, 3 * cells * sizeof(double));
    DeviceBuffer totals(exec, 3 * sizeof(double));
    dispatch_dimension(g.dim, [&]<int DIM>() {
        if (g.nodes_per_cell > largest_cell_in_registers)
            warp_error_integrals_kernel<DIM><<<warp_grid_for(g.num_cells), block_size, 0, stream>>>(
                program, g, u, sums.as<double>());
        else
            error_integrals_kernel<DIM><<<grid_for(g.num_cells), block_size, 0, stream>>>(
                program, g, u, sums.as<double>());
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, sums.as<double>(),
                                             totals.as<double>(), g.num_cells, stream));
    DeviceBuffer temp(exec, temp_bytes);
    for (int k = 0; k < 3; ++k)
        GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(temp.as<void>(), temp_bytes,
                                                 sums.as<double>() + k * cells,
                                                 totals.as<double>() + k, g.num_cells, stream));
    double host[3];
    GPUFEM_CUDA_CHECK(
        cudaMemcpyAsync(host, totals.as<double>(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return {host[0], host[1], host[2]};
}

template <typename V>
double nodal_errors(const Executor& exec, const ExprInstruction* program,
                    const double* coordinates, index_type n, const V* u, double* exact,
                    double* error)
{
    if (n == 0) return 0.0;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    nodal_errors_kernel<<<grid_for(n), block_size, 0, stream>>>(program, coordinates, n, u, exact,
                                                                error);
    GPUFEM_CUDA_CHECK_LAUNCH();
    DeviceBuffer result(exec, sizeof(double));
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_bytes, error, result.as<double>(), n,
                                                AbsMax{}, 0.0, stream));
    DeviceBuffer temp(exec, temp_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Reduce(temp.as<void>(), temp_bytes, error,
                                                result.as<double>(), n, AbsMax{}, 0.0, stream));
    double host = 0;
    GPUFEM_CUDA_CHECK(
        cudaMemcpyAsync(&host, result.as<double>(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    evaluate_at_quadrature_points, evaluate_at_points, error_integrals, nodal_errors)

}  // namespace gpufem::kernels::cuda
