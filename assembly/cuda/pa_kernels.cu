// The partial-assembly kernels on CUDA. The apply gives each cell Q^d threads (one per
// quadrature point) and packs several cells into a block of about 256 threads; the 1D tables
// and the cells' intermediate arrays live in shared memory, each contraction is one step in
// which a thread forms one output entry, and the steps are separated by block barriers.
#include <stdexcept>
#include <string>

#include "assembly/pa_kernels.hpp"
#include "assembly/pa_point_math.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

/// The node of a stored value, Dirichlet (~node) or not.
__device__ inline index_type decoded(index_type stored) { return stored < 0 ? ~stored : stored; }

__global__ void lexicographic_nodes_kernel(index_type num_cells, int npe, const index_type* __restrict__ cells,
                                           const int* __restrict__ gmsh_of_lex,
                                           const std::uint8_t* __restrict__ mask, index_type* __restrict__ nodes)
{
    const long long t = thread_index();
    if (t >= static_cast<long long>(num_cells) * npe) return;
    const long long e = t / npe;
    const index_type node = cells[e * npe + gmsh_of_lex[t % npe]];
    nodes[t] = mask && mask[node] ? ~node : node;
}

template <int DIM, typename V>
__global__ void point_factors_kernel(ElementArgs<V> a, const int* __restrict__ rule_of_lex, V* factors, V* loads)
{
    const long long t = thread_index();
    const int points = a.num_points;
    if (t >= static_cast<long long>(a.num_cells) * points) return;
    const int q = static_cast<int>(t % points);
    pa::store_point_factors<DIM>(a, static_cast<index_type>(t / points), q, rule_of_lex[q], points, factors, loads);
}

template <typename V>
__global__ void loads_kernel(PaArgs<V> a, const V* __restrict__ loads, V* rhs)
{
    const long long t = thread_index();
    const int npe = pa_nodes_per_cell(a);
    if (t >= static_cast<long long>(a.cells) * npe) return;
    const index_type e = static_cast<index_type>(t / npe);
    const int l = static_cast<int>(t % npe);
    atomicAdd(&rhs[decoded(a.nodes[t])], pa::cell_load(a, loads, e, l));
}

template <typename V>
__global__ void diagonal_kernel(PaArgs<V> a, V* diag)
{
    const long long t = thread_index();
    const int npe = pa_nodes_per_cell(a);
    if (t >= static_cast<long long>(a.cells) * npe) return;
    const index_type e = static_cast<index_type>(t / npe);
    const int l = static_cast<int>(t % npe);
    atomicAdd(&diag[decoded(a.nodes[t])], pa::cell_diagonal(a, e, l));
}

/// Threads of one cell in the apply (one per quadrature point).
template <int DIM, int Q>
constexpr int points_of = DIM == 2 ? Q * Q : Q * Q * Q;
/// Cells per block of the apply: about 256 threads.
template <int DIM, int Q>
constexpr int cells_per_block = points_of<DIM, Q> >= 256 ? 1 : 256 / points_of<DIM, Q>;

/// Copies the 1D tables (n entries each) into shared memory, the block's threads sharing the
/// work (read after the block's first barrier).
template <typename V>
__device__ inline void load_tables(const PaArgs<V>& a, V* sB, V* sD, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        sB[i] = a.basis[i];
        sD[i] = a.derivative[i];
    }
}

/// The cell's value of x at its node stored as `stored`, under columns.
template <typename V>
__device__ inline V gathered(const V* __restrict__ x, index_type stored, PaColumns columns)
{
    if ((stored < 0) != (columns == PaColumns::dirichlet)) return V(0);
    return __ldg(&x[decoded(stored)]);
}

/// The pointwise step of a 3D point: G grad into v[0..2], and beta . grad + (w |det J| c) u.
template <bool LOWER, typename V>
__device__ inline V point_step_3d(const PaArgs<V>& a, index_type e, int r, bool active, const V (&g)[3], V u,
                                  V (&v)[3])
{
    if (!active) {
        v[0] = v[1] = v[2] = V(0);
        return V(0);
    }
    const int points = pa_points_per_cell(a);
    const long long n = static_cast<long long>(a.cells) * points, at = static_cast<long long>(e) * points + r;
    const V* f = a.factors + at;
    const V G00 = f[0], G01 = f[n], G02 = f[2 * n], G11 = f[3 * n], G12 = f[4 * n], G22 = f[5 * n];
    v[0] = G00 * g[0] + G01 * g[1] + G02 * g[2];
    v[1] = G01 * g[0] + G11 * g[1] + G12 * g[2];
    v[2] = G02 * g[0] + G12 * g[1] + G22 * g[2];
    if constexpr (!LOWER) return V(0);
    return f[6 * n] * g[0] + f[7 * n] * g[1] + f[8 * n] * g[2] + f[9 * n] * u;
}

/// The same in 2D.
template <bool LOWER, typename V>
__device__ inline V point_step_2d(const PaArgs<V>& a, index_type e, int r, bool active, const V (&g)[2], V u,
                                  V (&v)[2])
{
    if (!active) {
        v[0] = v[1] = V(0);
        return V(0);
    }
    const int points = pa_points_per_cell(a);
    const long long n = static_cast<long long>(a.cells) * points, at = static_cast<long long>(e) * points + r;
    const V* f = a.factors + at;
    const V G00 = f[0], G01 = f[n], G11 = f[2 * n];
    v[0] = G00 * g[0] + G01 * g[1];
    v[1] = G01 * g[0] + G11 * g[1];
    if constexpr (!LOWER) return V(0);
    return f[3 * n] * g[0] + f[4 * n] * g[1] + f[5 * n] * u;
}

/// 3D apply: P nodes and Q points per direction. Buffers are indexed i0 + Q (i1 + Q i2)
/// whatever their extents, so a thread's own entry is at its index r.
template <int P, int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(cells_per_block<3, Q> * points_of<3, Q>)
    apply_3d_kernel(PaArgs<V> a, V alpha, const V* __restrict__ x, V* __restrict__ y, PaColumns columns)
{
    constexpr int T = points_of<3, Q>, E = cells_per_block<3, Q>;
    __shared__ V sB[Q * P], sD[Q * P];
    __shared__ V buffers[E][7][T];
    load_tables(a, sB, sD, Q * P);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    const int r0 = r % Q, r1 = (r / Q) % Q, r2 = r / (Q * Q);
    const index_type e = static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < a.cells;
    const bool is_node = r0 < P && r1 < P && r2 < P;
    V(&b)[7][T] = buffers[slot];
    index_type stored = -1;
    if (active && is_node) stored = a.nodes[static_cast<long long>(e) * P * P * P + r0 + P * (r1 + P * r2)];
    b[0][r] = active && is_node ? gathered(x, stored, columns) : V(0);
    __syncthreads();
    if (r1 < P && r2 < P) {  // along x: X = B u, Xd = D u
        V X = 0, Xd = 0;
#pragma unroll
        for (int i = 0; i < P; ++i) {
            const V u = b[0][i + Q * (r1 + Q * r2)];
            X += sB[r0 * P + i] * u;
            Xd += sD[r0 * P + i] * u;
        }
        b[1][r] = X;
        b[2][r] = Xd;
    }
    __syncthreads();
    if (r2 < P) {  // along y: XY = B X, XdY = B Xd, XYd = D X
        V XY = 0, XdY = 0, XYd = 0;
#pragma unroll
        for (int j = 0; j < P; ++j) {
            const int at = r0 + Q * (j + Q * r2);
            XY += sB[r1 * P + j] * b[1][at];
            XdY += sB[r1 * P + j] * b[2][at];
            XYd += sD[r1 * P + j] * b[1][at];
        }
        b[3][r] = XY;
        b[4][r] = XdY;
        b[5][r] = XYd;
    }
    __syncthreads();
    {  // along z: the reference gradient (and value) at the point, then the factors
        V g[3] = {0, 0, 0}, u = 0;
#pragma unroll
        for (int k = 0; k < P; ++k) {
            const int at = r0 + Q * (r1 + Q * k);
            g[0] += sB[r2 * P + k] * b[4][at];
            g[1] += sB[r2 * P + k] * b[5][at];
            g[2] += sD[r2 * P + k] * b[3][at];
            if constexpr (LOWER) u += sB[r2 * P + k] * b[3][at];
        }
        V v[3];
        const V s = point_step_3d<LOWER>(a, e, r, active, g, u, v);
        b[0][r] = v[0];
        b[1][r] = v[1];
        b[2][r] = v[2];
        if constexpr (LOWER) b[6][r] = s;
    }
    __syncthreads();
    if (r2 < P) {  // back along z
        V WXdY = 0, WXYd = 0, WXY = 0;
#pragma unroll
        for (int qz = 0; qz < Q; ++qz) {
            const int at = r0 + Q * (r1 + Q * qz);
            WXdY += sB[qz * P + r2] * b[0][at];
            WXYd += sB[qz * P + r2] * b[1][at];
            WXY += sD[qz * P + r2] * b[2][at];
            if constexpr (LOWER) WXY += sB[qz * P + r2] * b[6][at];
        }
        b[3][r] = WXdY;
        b[4][r] = WXYd;
        b[5][r] = WXY;
    }
    __syncthreads();
    if (r1 < P && r2 < P) {  // back along y
        V WX = 0, WXd = 0;
#pragma unroll
        for (int qy = 0; qy < Q; ++qy) {
            const int at = r0 + Q * (qy + Q * r2);
            WX += sB[qy * P + r1] * b[5][at] + sD[qy * P + r1] * b[4][at];
            WXd += sB[qy * P + r1] * b[3][at];
        }
        b[0][r] = WX;
        b[1][r] = WXd;
    }
    __syncthreads();
    if (is_node && active && stored >= 0) {  // back along x, into y
        V sum = 0;
#pragma unroll
        for (int qx = 0; qx < Q; ++qx) {
            const int at = qx + Q * (r1 + Q * r2);
            sum += sB[qx * P + r0] * b[0][at] + sD[qx * P + r0] * b[1][at];
        }
        atomicAdd(&y[stored], alpha * sum);
    }
}

/// 2D apply, as the 3D one.
template <int P, int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(cells_per_block<2, Q> * points_of<2, Q>)
    apply_2d_kernel(PaArgs<V> a, V alpha, const V* __restrict__ x, V* __restrict__ y, PaColumns columns)
{
    constexpr int T = points_of<2, Q>, E = cells_per_block<2, Q>;
    __shared__ V sB[Q * P], sD[Q * P];
    __shared__ V buffers[E][5][T];
    load_tables(a, sB, sD, Q * P);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    const int r0 = r % Q, r1 = r / Q;
    const index_type e = static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < a.cells;
    const bool is_node = r0 < P && r1 < P;
    V(&b)[5][T] = buffers[slot];
    index_type stored = -1;
    if (active && is_node) stored = a.nodes[static_cast<long long>(e) * P * P + r0 + P * r1];
    b[0][r] = active && is_node ? gathered(x, stored, columns) : V(0);
    __syncthreads();
    if (r1 < P) {  // along x
        V X = 0, Xd = 0;
#pragma unroll
        for (int i = 0; i < P; ++i) {
            const V u = b[0][i + Q * r1];
            X += sB[r0 * P + i] * u;
            Xd += sD[r0 * P + i] * u;
        }
        b[1][r] = X;
        b[2][r] = Xd;
    }
    __syncthreads();
    {  // along y, then the factors
        V g[2] = {0, 0}, u = 0;
#pragma unroll
        for (int j = 0; j < P; ++j) {
            const int at = r0 + Q * j;
            g[0] += sB[r1 * P + j] * b[2][at];
            g[1] += sD[r1 * P + j] * b[1][at];
            if constexpr (LOWER) u += sB[r1 * P + j] * b[1][at];
        }
        V v[2];
        const V s = point_step_2d<LOWER>(a, e, r, active, g, u, v);
        b[0][r] = v[0];
        b[3][r] = v[1];
        if constexpr (LOWER) b[4][r] = s;
    }
    __syncthreads();
    if (r1 < P) {  // back along y
        V WX = 0, WXd = 0;
#pragma unroll
        for (int qy = 0; qy < Q; ++qy) {
            const int at = r0 + Q * qy;
            WX += sD[qy * P + r1] * b[3][at];
            if constexpr (LOWER) WX += sB[qy * P + r1] * b[4][at];
            WXd += sB[qy * P + r1] * b[0][at];
        }
        b[1][r] = WX;
        b[2][r] = WXd;
    }
    __syncthreads();
    if (is_node && active && stored >= 0) {  // back along x, into y
        V sum = 0;
#pragma unroll
        for (int qx = 0; qx < Q; ++qx) {
            const int at = qx + Q * r1;
            sum += sB[qx * P + r0] * b[1][at] + sD[qx * P + r0] * b[2][at];
        }
        atomicAdd(&y[stored], alpha * sum);
    }
}

/// Launches the apply for compile-time P = Q (the Gauss rule of the assembly has as many
/// points per direction as nodes).
template <int DIM, int P, bool LOWER, typename V>
void launch_apply(const Executor& exec, const PaArgs<V>& a, V alpha, const V* x, V* y, PaColumns columns)
{
    constexpr int E = cells_per_block<DIM, P>;
    const unsigned blocks = static_cast<unsigned>((static_cast<long long>(a.cells) + E - 1) / E);
    const unsigned threads = E * points_of<DIM, P>;
    if constexpr (DIM == 2)
        apply_2d_kernel<P, P, LOWER><<<blocks, threads, 0, stream_of(exec)>>>(a, alpha, x, y, columns);
    else
        apply_3d_kernel<P, P, LOWER><<<blocks, threads, 0, stream_of(exec)>>>(a, alpha, x, y, columns);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <int DIM, bool LOWER, typename V>
void apply_for_degree(const Executor& exec, const PaArgs<V>& a, V alpha, const V* x, V* y, PaColumns columns)
{
    switch (a.p1) {
    case 2: return launch_apply<DIM, 2, LOWER>(exec, a, alpha, x, y, columns);
    case 3: return launch_apply<DIM, 3, LOWER>(exec, a, alpha, x, y, columns);
    case 4: return launch_apply<DIM, 4, LOWER>(exec, a, alpha, x, y, columns);
    case 5: return launch_apply<DIM, 5, LOWER>(exec, a, alpha, x, y, columns);
    default:
        throw std::invalid_argument("format pa: no CUDA kernel for degree " + std::to_string(a.p1 - 1));
    }
}

}  // namespace

void pa_lexicographic_nodes(const Executor& exec, index_type num_cells, int npe, const index_type* cells,
                            const int* gmsh_of_lex, const std::uint8_t* mask, index_type* nodes)
{
    const long long n = static_cast<long long>(num_cells) * npe;
    if (n == 0) return;
    lexicographic_nodes_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(num_cells, npe, cells, gmsh_of_lex,
                                                                               mask, nodes);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void pa_point_factors(const Executor& exec, const ElementArgs<V>& a, const int* rule_of_lex, V* factors, V* loads)
{
    const long long n = static_cast<long long>(a.num_cells) * a.num_points;
    if (n == 0) return;
    if (a.dim == 2)
        point_factors_kernel<2><<<grid_for(n), block_size, 0, stream_of(exec)>>>(a, rule_of_lex, factors, loads);
    else
        point_factors_kernel<3><<<grid_for(n), block_size, 0, stream_of(exec)>>>(a, rule_of_lex, factors, loads);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void pa_loads(const Executor& exec, const PaArgs<V>& a, const V* loads, V* rhs)
{
    const long long n = static_cast<long long>(a.cells) * pa_nodes_per_cell(a);
    if (n == 0) return;
    loads_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(a, loads, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void pa_diagonal(const Executor& exec, const PaArgs<V>& a, V* diag)
{
    const long long n = static_cast<long long>(a.cells) * pa_nodes_per_cell(a);
    if (n == 0) return;
    diagonal_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(a, diag);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void pa_apply_cells(const Executor& exec, const PaArgs<V>& a, V alpha, const V* x, V* y, PaColumns columns)
{
    if (a.cells == 0) return;
    if (a.q1 != a.p1)
        throw std::invalid_argument("format pa: the CUDA kernels take as many points as nodes per direction");
    if (a.dim == 2) {
        if (a.lower_order) apply_for_degree<2, true>(exec, a, alpha, x, y, columns);
        else apply_for_degree<2, false>(exec, a, alpha, x, y, columns);
    } else {
        if (a.lower_order) apply_for_degree<3, true>(exec, a, alpha, x, y, columns);
        else apply_for_degree<3, false>(exec, a, alpha, x, y, columns);
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(pa_point_factors, pa_loads, pa_diagonal, pa_apply_cells)

}  // namespace gpufem::kernels::cuda
