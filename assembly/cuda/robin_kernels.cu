#include <climits>

#include "assembly/cuda/first_failure.hpp"
#include "assembly/robin_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::FirstFailure;

/// One thread per facet: its matrix in global memory (npf^2 doubles), its load by atomics.
template <typename V>
__global__ void facet_terms_kernel(const ExprInstruction* __restrict__ h, const ExprInstruction* __restrict__ u_inf,
                                   const double* __restrict__ coordinates, const index_type* __restrict__ facet_nodes,
                                   index_type num_facets, FacetTables t, double* __restrict__ matrices,
                                   V* __restrict__ rhs, unsigned long long* first_failure)
{
    const long long f = thread_index();
    if (f >= num_facets) return;
    const int npf = t.nodes_per_facet;
    const index_type* nodes = facet_nodes + f * npf;
    double* m = matrices + f * npf * npf;
    for (int k = 0; k < npf * npf; ++k) m[k] = 0.0;
    for (int q = 0; q < t.num_points; ++q) {
        double x[3];
        const double measure = facet_point(t, coordinates, nodes, q, x);
        const double hq = evaluate_program(h, x[0], x[1], x[2]);
        const double uq = evaluate_program(u_inf, x[0], x[1], x[2]);
        if (!(hq >= 0.0) || !isfinite(hq) || !isfinite(uq)) {
            atomicMin(first_failure, static_cast<unsigned long long>(f) * t.num_points + q);
            return;
        }
        const double w = t.weights[q] * measure * hq;
        const double* n = t.values + q * npf;
        for (int i = 0; i < npf; ++i) {
            for (int j = 0; j < npf; ++j) m[i * npf + j] += w * n[i] * n[j];
            atomicAdd(rhs + nodes[i], static_cast<V>(w * uq * n[i]));
        }
    }
}

__global__ void fill_owners_kernel(FacetOwnerSearch s, index_type* __restrict__ owner, index_type value)
{
    const long long k = thread_index();
    if (k < s.num_keys) owner[s.facet_of_key[k]] = value;
}

__global__ void owners_kernel(FacetOwnerSearch s, index_type* __restrict__ owner)
{
    const long long c = thread_index();
    if (c >= s.num_cells) return;
    for_each_owned_facet(s, c, [&](index_type facet) { atomicMin(owner + facet, static_cast<index_type>(c)); });
}

__global__ void unowned_kernel(FacetOwnerSearch s, index_type* __restrict__ owner)
{
    const long long k = thread_index();
    if (k >= s.num_keys) return;
    index_type& o = owner[s.facet_of_key[k]];
    if (o == INT_MAX) o = -1;
}

__global__ void places_kernel(FacetMatrices facets, const index_type* __restrict__ cells, int npe,
                              const index_type* __restrict__ owner, index_type* __restrict__ local,
                              unsigned long long* first_failure)
{
    const long long k = thread_index();
    if (k >= facets.count) return;
    if (!place_facet(facets, cells, npe, owner, static_cast<index_type>(k), local))
        atomicMin(first_failure, static_cast<unsigned long long>(k));
}

template <typename V, typename O>
__global__ void csr_add_kernel(FacetMatrices facets, const O* __restrict__ row_ptr,
                               const index_type* __restrict__ col_idx, V* __restrict__ values)
{
    const long long k = thread_index();
    if (k >= facets.count) return;
    const int npf = facets.nodes_per_facet;
    const index_type* nodes = facets.nodes + k * npf;
    const double* m = facets.values + k * npf * npf;
    for (int i = 0; i < npf; ++i) {
        const O first = row_ptr[nodes[i]], last = row_ptr[nodes[i] + 1];
        for (int j = 0; j < npf; ++j) {
            O lo = first, hi = last;
            while (lo < hi) {
                const O mid = lo + (hi - lo) / 2;
                if (col_idx[mid] < nodes[j]) lo = mid + 1; else hi = mid;
            }
            atomicAdd(values + lo, static_cast<V>(m[i * npf + j]));
        }
    }
}

template <typename V>
__global__ void cells_add_kernel(FacetMatrices facets, const index_type* __restrict__ owner,
                                 const index_type* __restrict__ local, const index_type* __restrict__ cell_map,
                                 int npe, index_type stride, bool symmetric, V* __restrict__ matrices)
{
    const long long k = thread_index();
    if (k >= facets.count) return;
    const index_type e = cell_map ? cell_map[owner[k]] : owner[k];
    if (e < 0) return;
    const int npf = facets.nodes_per_facet;
    const index_type* places = local + k * npf;
    const double* m = facets.values + k * npf * npf;
    for (int i = 0; i < npf; ++i)
        for (int j = 0; j < npf; ++j) {
            const long long at = cell_entry_position(npe, stride, symmetric, e, places[i], places[j]);
            if (at >= 0) atomicAdd(matrices + at, static_cast<V>(m[i * npf + j]));
        }
}

template <typename V>
__global__ void products_kernel(FacetMatrices facets, const V* __restrict__ u, double* __restrict__ y)
{
    const long long k = thread_index();
    if (k >= facets.count) return;
    for (int i = 0; i < facets.nodes_per_facet; ++i)
        atomicAdd(y + facets.nodes[k * facets.nodes_per_facet + i], facets.row_product(k, i, u));
}

template <typename V>
__global__ void action_kernel(FacetMatrices facets, V alpha, const V* __restrict__ x,
                              const std::uint8_t* __restrict__ mask, bool dirichlet_columns, V* __restrict__ y)
{
    const long long k = thread_index();
    if (k >= facets.count) return;
    for (int i = 0; i < facets.nodes_per_facet; ++i) {
        const index_type node = facets.nodes[k * facets.nodes_per_facet + i];
        if (!mask || !mask[node])
            atomicAdd(y + node, alpha * static_cast<V>(facets.masked_row_product(k, i, x, mask, dirichlet_columns)));
    }
}

template <typename V>
__global__ void facet_diagonal_kernel(FacetMatrices facets, V* __restrict__ diag)
{
    const long long k = thread_index();
    if (k >= facets.count) return;
    const long long npf = facets.nodes_per_facet;
    for (long long i = 0; i < npf; ++i)
        atomicAdd(diag + facets.nodes[k * npf + i], static_cast<V>(facets.values[(k * npf + i) * npf + i]));
}

}  // namespace

template <typename V>
void add_facet_action(const Executor& exec, const FacetMatrices& facets, V alpha, const V* x, const std::uint8_t* mask,
                      bool dirichlet_columns, V* y)
{
    if (facets.count == 0) return;
    action_kernel<V><<<grid_for(facets.count), block_size, 0, stream_of(exec)>>>(facets, alpha, x, mask,
                                                                                dirichlet_columns, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void add_facet_diagonal(const Executor& exec, const FacetMatrices& facets, V* diag)
{
    if (facets.count == 0) return;
    facet_diagonal_kernel<V><<<grid_for(facets.count), block_size, 0, stream_of(exec)>>>(facets, diag);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void add_facet_products(const Executor& exec, const FacetMatrices& facets, const V* u, double* y)
{
    if (facets.count == 0) return;
    products_kernel<V><<<grid_for(facets.count), block_size, 0, stream_of(exec)>>>(facets, u, y);
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

template <typename V>
long long robin_facet_terms(const Executor& exec, const ExprInstruction* h, const ExprInstruction* u_inf,
                            const double* coordinates, const index_type* facet_nodes, index_type num_facets,
                            const FacetTables& tables, double* matrices, V* rhs)
{
    if (num_facets == 0) return -1;
    FirstFailure first(exec);
    facet_terms_kernel<V><<<grid_for(num_facets), block_size, 0, stream_of(exec)>>>(
        h, u_inf, coordinates, facet_nodes, num_facets, tables, matrices, rhs, first.device());
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return first.fetch();
}

void find_facet_owners(const Executor& exec, const FacetOwnerSearch& search, index_type* owner)
{
    if (search.num_keys == 0) return;
    const auto stream = stream_of(exec);
    fill_owners_kernel<<<grid_for(search.num_keys), block_size, 0, stream>>>(search, owner, INT_MAX);
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    if (search.num_cells > 0) {
        owners_kernel<<<grid_for(search.num_cells), block_size, 0, stream>>>(search, owner);
        GPUFEM_CUDA_CHECK(cudaGetLastError());
    }
    unowned_kernel<<<grid_for(search.num_keys), block_size, 0, stream>>>(search, owner);
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

long long facet_places(const Executor& exec, const FacetMatrices& facets, const index_type* cells, int npe,
                       const index_type* owner, index_type* local)
{
    if (facets.count == 0) return -1;
    FirstFailure first(exec);
    places_kernel<<<grid_for(facets.count), block_size, 0, stream_of(exec)>>>(facets, cells, npe, owner, local,
                                                                              first.device());
    GPUFEM_CUDA_CHECK(cudaGetLastError());
    return first.fetch();
}

template <typename V, typename O>
void add_facet_matrices_csr(const Executor& exec, const FacetMatrices& facets, const O* row_ptr,
                            const index_type* col_idx, V* values)
{
    if (facets.count == 0) return;
    csr_add_kernel<V, O><<<grid_for(facets.count), block_size, 0, stream_of(exec)>>>(facets, row_ptr, col_idx,
                                                                                     values);
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

template <typename V>
void add_facet_matrices_to_cells(const Executor& exec, const FacetMatrices& facets, const index_type* owner,
                                 const index_type* local, const index_type* cell_map, int npe,
                                 index_type stride, bool symmetric, V* matrices)
{
    if (facets.count == 0) return;
    cells_add_kernel<V><<<grid_for(facets.count), block_size, 0, stream_of(exec)>>>(
        facets, owner, local, cell_map, npe, stride, symmetric, matrices);
    GPUFEM_CUDA_CHECK(cudaGetLastError());
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(robin_facet_terms, add_facet_matrices_to_cells, add_facet_products,
                                   add_facet_action, add_facet_diagonal)
GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(add_facet_matrices_csr)

}  // namespace gpufem::kernels::cuda
