#include <cstdint>

#include "assembly/boundary_kernels.hpp"
#include "assembly/cuda/first_failure.hpp"
#include "assembly/expression_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/launch_shape.cuh"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::block_size;
using gpufem::cuda::grid_for;

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

template <typename V>
__global__ void dirichlet_kernel(const ExprInstruction* __restrict__ program,
                                 const double* __restrict__ coordinates,
                                 const index_type* __restrict__ nodes, index_type n,
                                 std::uint8_t* __restrict__ mask, V* __restrict__ values,
                                 unsigned long long* first_failure)
{
    const index_type k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const index_type node = nodes[k];
    const double* x = coordinates + 3 * static_cast<long long>(node);
    const double value = evaluate_program(program, x[0], x[1], x[2]);
    if (!passes(ValueCheck::finite, value)) atomicMin(first_failure, static_cast<unsigned long long>(k));
    mask[node] = 1;
    values[node] = static_cast<V>(value);
}

/// One thread per facet: its quadrature points in order, atomic adds into rhs.
template <typename V>
__global__ void neumann_kernel(const ExprInstruction* __restrict__ program,
                               const double* __restrict__ coordinates,
                               const index_type* __restrict__ facet_nodes, index_type num_facets,
                               FacetTables t, V* __restrict__ rhs,
                               unsigned long long* first_failure)
{
    const index_type f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= num_facets) return;
    const int npf = t.nodes_per_facet;
    const index_type* nodes = facet_nodes + static_cast<long long>(f) * npf;
    for (int q = 0; q < t.num_points; ++q) {
        double x[3];
        const double measure = facet_point(t, coordinates, nodes, q, x);
        const double value = evaluate_program(program, x[0], x[1], x[2]);
        if (!passes(ValueCheck::finite, value)) {
            atomicMin(first_failure, static_cast<unsigned long long>(f) * t.num_points + q);
            return;
        }
        const double w = t.weights[q] * measure * value;
        for (int i = 0; i < npf; ++i) atomicAdd(rhs + nodes[i], static_cast<V>(w * t.values[q * npf + i]));
    }
}

}  // namespace

template <typename V>
long long set_dirichlet_values(const Executor& exec, const ExprInstruction* program,
                               const double* coordinates, const index_type* nodes, index_type n,
                               std::uint8_t* mask, V* values)
{
    if (n == 0) return -1;
    gpufem::cuda::FirstFailure first(exec);
    dirichlet_kernel<V><<<grid_for(n), block_size, 0, stream_of(exec)>>>(
        program, coordinates, nodes, n, mask, values, first.device());
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return first.fetch();
}

template <typename V>
long long add_neumann_load(const Executor& exec, const ExprInstruction* program,
                           const double* coordinates, const index_type* facet_nodes,
                           index_type num_facets, const FacetTables& tables, V* rhs)
{
    if (num_facets == 0) return -1;
    gpufem::cuda::FirstFailure first(exec);
    neumann_kernel<V><<<grid_for(num_facets), block_size, 0, stream_of(exec)>>>(
        program, coordinates, facet_nodes, num_facets, tables, rhs, first.device());
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return first.fetch();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(set_dirichlet_values, add_neumann_load)

}  // namespace gpufem::kernels::cuda
