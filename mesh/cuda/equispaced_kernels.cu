// The GLL-to-equispaced conversion on CUDA: a block per cell, a thread per node (at most 9^3),
// the cell's values on its lattice in shared memory, one contraction per axis, each a step in
// which a thread forms one lattice entry; the first cells by an atomic minimum.
#include <climits>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "mesh/equispaced_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int most_lattice = equispaced_max_points * equispaced_max_points * equispaced_max_points;

__global__ void fill_none_kernel(long long n, index_type* owner)
{
    const long long i = thread_index();
    if (i < n) owner[i] = INT_MAX;
}

__global__ void first_cells_kernel(const index_type* __restrict__ cells, int npe, long long entries,
                                   index_type* owner)
{
    const long long k = thread_index();
    if (k < entries) atomicMin(&owner[cells[k]], static_cast<index_type>(k / npe));
}

__global__ void mark_none_kernel(long long n, index_type* owner)
{
    const long long i = thread_index();
    if (i < n && owner[i] == INT_MAX) owner[i] = -1;
}

template <typename T>
__global__ void __launch_bounds__(most_lattice)
    cell_values_kernel(EquispacedArgs a, const T* __restrict__ in, T* __restrict__ out, int stride, int components)
{
    __shared__ double lattice[2][most_lattice];
    __shared__ double line[equispaced_max_points * equispaced_max_points];
    const int p = a.points, t = threadIdx.x;
    for (int i = t; i < p * p; i += blockDim.x) line[i] = a.line[i];
    const long long c = blockIdx.x;
    const index_type node = a.cells[c * a.nodes_per_cell + t];
    const int lex = a.lexicographic[t];
    const bool owns = a.owner[node] == c;
    for (int s = 0; s < components; ++s) {
        __syncthreads();  // the previous component's result read, the line loaded
        lattice[0][lex] = static_cast<double>(in[static_cast<long long>(node) * stride + s]);
        int from = 0;
        for (int axis = 0, step = 1; axis < a.dim; ++axis, step *= p) {
            __syncthreads();
            const int i = (t / step) % p, base = t - i * step;
            double sum = 0;
            for (int m = 0; m < p; ++m) sum += line[i * p + m] * lattice[from][base + m * step];
            lattice[1 - from][t] = sum;
            from = 1 - from;
        }
        __syncthreads();
        if (owns) out[static_cast<long long>(node) * stride + s] = static_cast<T>(lattice[from][lex]);
    }
}

template <typename T>
__global__ void keep_kernel(long long n, const index_type* __restrict__ owner, const T* __restrict__ in,
                            T* __restrict__ out, int stride, int components)
{
    const long long i = thread_index();
    if (i >= n || owner[i] >= 0) return;
    for (int s = 0; s < components; ++s) out[i * stride + s] = in[i * stride + s];
}

}  // namespace

void first_cells_of_nodes(const Executor& exec, const index_type* cells, int nodes_per_cell, long long num_cells,
                          long long num_nodes, index_type* owner)
{
    if (num_nodes == 0) return;
    auto stream = stream_of(exec);
    fill_none_kernel<<<grid_for(num_nodes), block_size, 0, stream>>>(num_nodes, owner);
    const long long entries = num_cells * nodes_per_cell;
    if (entries > 0) first_cells_kernel<<<grid_for(entries), block_size, 0, stream>>>(cells, nodes_per_cell, entries, owner);
    mark_none_kernel<<<grid_for(num_nodes), block_size, 0, stream>>>(num_nodes, owner);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void equispaced_values(const Executor& exec, const EquispacedArgs& a, const T* in, T* out, int stride, int components)
{
    auto stream = stream_of(exec);
    if (a.num_cells > 0)
        cell_values_kernel<T><<<static_cast<unsigned>(a.num_cells), a.nodes_per_cell, 0, stream>>>(a, in, out, stride,
                                                                                                   components);
    if (a.num_nodes > 0)
        keep_kernel<T><<<grid_for(a.num_nodes), block_size, 0, stream>>>(a.num_nodes, a.owner, in, out, stride,
                                                                        components);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(equispaced_values)

}  // namespace gpufem::kernels::cuda
