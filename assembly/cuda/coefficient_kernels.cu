#include "assembly/coefficient_kernels.hpp"
#include "assembly/cuda/first_failure.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::FirstFailure;

/// One thread per cell: its tag's place among the m increasing tags (m: none of them) marked.
__global__ void present_tags_kernel(long long n, const int* __restrict__ region, const int* __restrict__ tags, int m,
                                    std::uint8_t* present)
{
    const long long c = thread_index();
    if (c >= n) return;
    const int tag = region[c];
    int low = 0, high = m;  // the first tags[k] >= tag
    while (low < high) {
        const int mid = (low + high) / 2;
        if (tags[mid] < tag) low = mid + 1;
        else high = mid;
    }
    const int k = low < m && tags[low] == tag ? low : m;
    if (!present[k]) present[k] = 1;  // read first: most cells find it marked
}

/// One thread per point of every cell; the cells of other regions return at once.
template <typename V>
__global__ void piece_kernel(const ExprInstruction* __restrict__ program, CoefficientPoints at, int tag,
                             int components, int component, ValueCheck check, V* __restrict__ out,
                             unsigned long long* first_failure)
{
    const long long k = thread_index();
    if (k >= at.num_cells * at.per_cell) return;
    const long long c = k / at.per_cell;
    if (tag >= 0 && at.region && at.region[c] != tag) return;
    double p[3];
    coefficient_point(at, c, static_cast<int>(k - c * at.per_cell), p);
    const V value = static_cast<V>(evaluate_program(program, p[0], p[1], p[2]));
    out[k * components + component] = value;
    if (!passes(check, static_cast<double>(value))) atomicMin(first_failure, static_cast<unsigned long long>(k));
}

/// One thread per point of every cell, writing its components.
template <typename V>
__global__ void spread_kernel(const double* __restrict__ values, CoefficientPoints at, int tag, int components,
                              V* __restrict__ out)
{
    const long long k = thread_index();
    if (k >= at.num_cells * at.per_cell) return;
    const long long c = k / at.per_cell;
    if (tag >= 0 && at.region && at.region[c] != tag) return;
    for (int j = 0; j < components; ++j)
        out[k * components + j] = static_cast<V>(values[c] * cell_value_component(j, components));
}

template <typename V>
__global__ void indefinite_kernel(const V* __restrict__ values, long long points, int dim,
                                  unsigned long long* first_failure)
{
    const long long k = thread_index();
    if (k < points && !positive_definite_tensor(values + k * (dim * (dim + 1) / 2), dim))
        atomicMin(first_failure, static_cast<unsigned long long>(k));
}

}  // namespace

template <typename V>
long long evaluate_coefficient_piece(const Executor& exec, const ExprInstruction* program, const CoefficientPoints& at,
                                     int tag, int components, int component, ValueCheck check, V* out)
{
    const long long points = at.num_cells * at.per_cell;
    if (points == 0) return -1;
    FirstFailure first(exec);
    piece_kernel<V><<<grid_for(points), block_size, 0, stream_of(exec)>>>(program, at, tag, components, component,
                                                                           check, out, first.device());
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return first.fetch();
}

template <typename V>
void spread_cell_values(const Executor& exec, const double* values, const CoefficientPoints& at, int tag, int components,
                        V* out)
{
    const long long points = at.num_cells * at.per_cell;
    if (points == 0) return;
    spread_kernel<V><<<grid_for(points), block_size, 0, stream_of(exec)>>>(values, at, tag, components, out);
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

template <typename V>
long long first_indefinite_tensor(const Executor& exec, const V* values, long long points, int dim)
{
    if (points == 0) return -1;
    FirstFailure first(exec);
    indefinite_kernel<V><<<grid_for(points), block_size, 0, stream_of(exec)>>>(values, points, dim, first.device());
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return first.fetch();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(evaluate_coefficient_piece, spread_cell_values, first_indefinite_tensor)

void mark_present_tags(const Executor& exec, long long n, const int* region, const int* tags, int m, std::uint8_t* present)
{
    if (n == 0) return;
    present_tags_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, region, tags, m, present);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace gpufem::kernels::cuda
