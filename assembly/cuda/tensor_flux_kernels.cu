// The flux kernels by sum factorisation on CUDA: a thread per point of a cell's P^3 lattice
// (P^2 on quadrilaterals), cells_per_block cells to a block (tensor_contractions.cuh), the
// Jacobian's rows and u's value and reference gradient by the partial-assembly apply's
// contractions, the cell's sums by block reductions and its residual by the apply's
// transposed contractions.
#include <stdexcept>
#include <string>

#include "assembly/cuda/tensor_contractions.cuh"
#include "assembly/jacobian.hpp"
#include "assembly/tensor_flux_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

/// The smallest power of two at least n, halved: the first stride of a tree reduction over n.
constexpr int first_half(int n)
{
    int p = 1;
    while (p < n) p *= 2;
    return p / 2;
}

/// t's tables into shared memory (P x P each; read after the block's next barrier).
template <typename V>
__device__ inline void load_flux_tables(const TensorFluxArgs<V>& t, V* sB, V* sD)
{
    for (int i = threadIdx.x; i < t.p1 * t.p1; i += blockDim.x) {
        sB[i] = t.basis[i];
        sD[i] = t.derivative[i];
    }
}

/// The Jacobian J and u's value and reference gradient at this thread's point r of its cell,
/// node: the cell's node at the thread's lexicographic node (-1 for a slot without a cell).
/// Every thread of the block calls it (block barriers inside; a contraction's last step reads
/// buffers the next one writes only after its first barrier).
template <int DIM, int P, typename V>
__device__ void point_of_thread(const ElementArgs<V>& a, index_type node, int r, const V* __restrict__ u,
                                const V* sB, const V* sD, V (&b)[buffers_of<DIM>][points_of<DIM, P>],
                                V (&J)[DIM][DIM], double& value, double (&reference)[DIM])
{
    V unused, g[DIM], v;
    for (int d = 0; d < DIM; ++d) {
        const V x = node >= 0 ? a.coordinates[3LL * node + d] : V(0);
        if constexpr (DIM == 2) reference_gradient_2d<P, P, false>(r, x, sB, sD, b, J[d], unused);
        else reference_gradient_3d<P, P, false>(r, x, sB, sD, b, J[d], unused);
    }
    const V ur = node >= 0 ? __ldg(&u[node]) : V(0);
    if constexpr (DIM == 2) reference_gradient_2d<P, P, true>(r, ur, sB, sD, b, g, v);
    else reference_gradient_3d<P, P, true>(r, ur, sB, sD, b, g, v);
    value = static_cast<double>(v);
    for (int c = 0; c < DIM; ++c) reference[c] = static_cast<double>(g[c]);
}

/// From the point's v (and s) back to this thread's node: transposed_contractions_2d or _3d.
template <int DIM, int P, typename V>
__device__ V to_thread_node(int r, const V (&v)[DIM], V s, const V* sB, const V* sD,
                            V (&b)[buffers_of<DIM>][points_of<DIM, P>])
{
    if constexpr (DIM == 2) return transposed_contractions_2d<P, true>(r, v, s, P, sB, sD, b);
    else return transposed_contractions_3d<P, true>(r, v, s, P, sB, sD, b);
}

/// Each slot's sums over its T threads: on return thread 0 of the slot holds the totals (a
/// tree over partial, one double per thread, the same order on every run). Every thread of
/// the block calls it.
template <int T>
__device__ void slot_sums(double (&sums)[cell_sum_count], double* partial, int r)
{
    for (int k = 0; k < cell_sum_count; ++k) {
        partial[threadIdx.x] = sums[k];
        __syncthreads();
        for (int half = first_half(T); half > 0; half /= 2) {
            if (r < half && r + half < T) partial[threadIdx.x] += partial[threadIdx.x + half];
            __syncthreads();
        }
        if (r == 0) sums[k] = partial[threadIdx.x];
        __syncthreads();
    }
}

/// The cells' means and integrals (and, mask given, residuals): see tensor_cell_fluxes.
template <int DIM, int P, typename V>
__global__ void __launch_bounds__(cells_per_block<DIM, P> * points_of<DIM, P>)
    cell_fluxes_kernel(ElementArgs<V> a, TensorFluxArgs<V> t, const V* __restrict__ u,
                       const std::uint8_t* __restrict__ mask, long long stride, double* __restrict__ mean_flux,
                       double* __restrict__ integrals, double* residual)
{
    constexpr int T = points_of<DIM, P>, E = cells_per_block<DIM, P>;
    __shared__ V sB[P * P], sD[P * P];
    __shared__ V buffers[E][buffers_of<DIM>][T];
    __shared__ double partial[E * T];
    static_assert(sizeof(sB) + sizeof(sD) + sizeof(buffers) + sizeof(partial) <= 48 * 1024,
                  "the cell kernel's static shared memory (47,952 bytes at nine points a direction in double)");
    load_flux_tables(t, sB, sD);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    const index_type e = static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < a.num_cells;
    const index_type node = active ? a.cells[static_cast<long long>(e) * a.nodes_per_cell + t.gmsh_of_lex[r]] : -1;
    V J[DIM][DIM];
    double value, reference[DIM];
    point_of_thread<DIM, P>(a, node, r, u, sB, sD, buffers[slot], J, value, reference);
    double sums[cell_sum_count] = {}, z[DIM] = {}, s = 0;
    if (active) {
        const int q = t.rule_of_lex[r];
        const long long qe = static_cast<long long>(e) * a.num_points + q;
        V inv[DIM][DIM];
        const PointSolution p = point_solution<DIM>(a, qe, J, value, reference, inv);
        add_solution_sums<DIM>(a, qe, q, p, sums);
        if (mask) residual_point_terms<DIM>(a, qe, q, p, inv, z, s);
    }
    slot_sums<T>(sums, partial, r);
    if (active && r == 0) write_cell_sums(sums, stride, mean_flux + e, integrals + e);
    if (!mask) return;  // the whole block
    const bool fixed = active && mask[node];
    if (!__syncthreads_or(fixed)) return;  // the whole block
    V terms[DIM];
    for (int c = 0; c < DIM; ++c) terms[c] = static_cast<V>(z[c]);
    const V y = to_thread_node<DIM, P>(r, terms, static_cast<V>(s), sB, sD, buffers[slot]);
    if (fixed) atomicAdd(&residual[node], static_cast<double>(y));
}

/// The flux at the cells' nodes: see tensor_node_fluxes.
template <int DIM, int P, typename V>
__global__ void __launch_bounds__(cells_per_block<DIM, P> * points_of<DIM, P>)
    node_fluxes_kernel(ElementArgs<V> a, TensorFluxArgs<V> t, const V* __restrict__ u, double* sum, double* weight)
{
    constexpr int T = points_of<DIM, P>, E = cells_per_block<DIM, P>;
    __shared__ V sB[P * P], sD[P * P];
    __shared__ V buffers[E][buffers_of<DIM>][T];
    load_flux_tables(t, sB, sD);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    const index_type e = static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < a.num_cells;
    const index_type node = active ? a.cells[static_cast<long long>(e) * a.nodes_per_cell + t.gmsh_of_lex[r]] : -1;
    V J[DIM][DIM], inv[DIM][DIM];
    double value, reference[DIM];
    point_of_thread<DIM, P>(a, node, r, u, sB, sD, buffers[slot], J, value, reference);
    if (!active) return;
    const PointSolution p =
        point_solution<DIM>(a, static_cast<long long>(e) * a.num_points + t.rule_of_lex[r], J, value, reference, inv);
    for (int d = 0; d < DIM; ++d) atomicAdd(&sum[3LL * node + d], p.measure * p.flux[d]);
    atomicAdd(&weight[node], p.measure);
}

/// Calls fn.template operator()<DIM, P>() for a's dimension and t's nodes per direction (3 to 9).
template <typename V, typename Fn>
void with_nodes_per_direction(const ElementArgs<V>& a, const TensorFluxArgs<V>& t, Fn&& fn)
{
    dispatch_dimension(a.dim, [&]<int DIM>() {
        switch (t.p1) {
        case 3: return fn.template operator()<DIM, 3>();
        case 4: return fn.template operator()<DIM, 4>();
        case 5: return fn.template operator()<DIM, 5>();
        case 6: return fn.template operator()<DIM, 6>();
        case 7: return fn.template operator()<DIM, 7>();
        case 8: return fn.template operator()<DIM, 8>();
        case 9: return fn.template operator()<DIM, 9>();
        default: throw std::invalid_argument("tensor flux kernels: no kernel for " + std::to_string(t.p1) +
                                             " nodes per direction");
        }
    });
}

/// Blocks of cells_per_block<DIM, P> cells over `cells` cells.
template <int DIM, int P>
unsigned flux_blocks(index_type cells)
{
    constexpr int E = cells_per_block<DIM, P>;
    return static_cast<unsigned>((static_cast<long long>(cells) + E - 1) / E);
}

}  // namespace

template <typename V>
void tensor_cell_fluxes(const Executor& exec, const ElementArgs<V>& a, const TensorFluxArgs<V>& t, const V* u,
                        const std::uint8_t* mask, long long stride, double* mean_flux, double* integrals,
                        double* residual)
{
    if (a.num_cells == 0) return;
    with_nodes_per_direction(a, t, [&]<int DIM, int P>() {
        constexpr unsigned threads = cells_per_block<DIM, P> * points_of<DIM, P>;
        cell_fluxes_kernel<DIM, P, V><<<flux_blocks<DIM, P>(a.num_cells), threads, 0, stream_of(exec)>>>(
            a, t, u, mask, stride, mean_flux, integrals, residual);
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void tensor_node_fluxes(const Executor& exec, const ElementArgs<V>& a, const TensorFluxArgs<V>& t, const V* u,
                        double* sum, double* weight)
{
    if (a.num_cells == 0) return;
    with_nodes_per_direction(a, t, [&]<int DIM, int P>() {
        constexpr unsigned threads = cells_per_block<DIM, P> * points_of<DIM, P>;
        node_fluxes_kernel<DIM, P, V><<<flux_blocks<DIM, P>(a.num_cells), threads, 0, stream_of(exec)>>>(a, t, u, sum,
                                                                                                         weight);
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(tensor_cell_fluxes, tensor_node_fluxes)

}  // namespace gpufem::kernels::cuda
