// The partial-assembly kernels on CUDA. The apply gives each cell Q^d threads (one per
// quadrature point) and packs several cells into a block of about 256 threads; the 1D tables
// and the cells' intermediate arrays live in shared memory, each contraction is one step in
// which a thread forms one output entry, and the steps are separated by block barriers. In 3D
// at most degrees the apply gives each cell Q^2 threads instead, one per column of points
// along z (pa_column_apply.cuh). A p-multigrid coarse level on a finer operator's points
// (fewer nodes than points per direction) always runs a thread per point.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "assembly/cuda/jacobian_tally.cuh"
#include "assembly/pa_kernels.hpp"
#include "assembly/pa_point_math.hpp"
#include "assembly/cuda/tensor_contractions.cuh"
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

/// Where point r of cell e finds its factors: component c at at[c stride], times weight (1
/// for factors per point; the point's quadrature weight for factors per cell, see pa_factor).
template <typename V>
struct PointFactors {
    const V* at;
    long long stride;
    V weight;
};

template <typename V>
__device__ inline PointFactors<V> point_factors(const PaArgs<V>& a, index_type e, int r)
{
    if (a.point_weights) return {a.factors + e, a.cells, __ldg(&a.point_weights[r])};
    const long long points = pa_points_per_cell(a);
    return {a.factors + e * points + r, a.cells * points, V(1)};
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
    const PointFactors<V> p = point_factors(a, e, r);
    const V* f = p.at;
    const long long n = p.stride;
    const V G00 = f[0], G01 = f[n], G02 = f[2 * n], G11 = f[3 * n], G12 = f[4 * n], G22 = f[5 * n];
    v[0] = p.weight * (G00 * g[0] + G01 * g[1] + G02 * g[2]);
    v[1] = p.weight * (G01 * g[0] + G11 * g[1] + G12 * g[2]);
    v[2] = p.weight * (G02 * g[0] + G12 * g[1] + G22 * g[2]);
    if constexpr (!LOWER) return V(0);
    return p.weight * (f[6 * n] * g[0] + f[7 * n] * g[1] + f[8 * n] * g[2] + f[9 * n] * u);
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
    const PointFactors<V> p = point_factors(a, e, r);
    const V* f = p.at;
    const long long n = p.stride;
    const V G00 = f[0], G01 = f[n], G11 = f[2 * n];
    v[0] = p.weight * (G00 * g[0] + G01 * g[1]);
    v[1] = p.weight * (G01 * g[0] + G11 * g[1]);
    if constexpr (!LOWER) return V(0);
    return p.weight * (f[3 * n] * g[0] + f[4 * n] * g[1] + f[5 * n] * u);
}

/// (K_e u) at this thread's node for the cell of this thread's slot, by sum factorisation
/// (3D: P nodes and Q points per direction, a thread per point r = r0 + Q (r1 + Q r2)). u: the
/// cell's value at the thread's node (0 on threads past the nodes); b: the cell's buffers;
/// active: the slot holds a cell. Every thread of the block calls it (it has block barriers);
/// the tables are in sB and sD. Returns 0 on threads past the nodes.
template <int P, int Q, bool LOWER, typename V>
__device__ V cell_action_3d(const PaArgs<V>& a, index_type e, int r, bool active, V u, const V* sB, const V* sD,
                            V (&b)[7][points_of<3, Q>])
{
    V g[3], value, v[3];
    reference_gradient_3d<P, Q, LOWER>(r, u, sB, sD, b, g, value);
    const V s = point_step_3d<LOWER>(a, e, r, active, g, value, v);
    return transposed_contractions_3d<Q, LOWER>(r, v, s, P, sB, sD, b);
}

/// The same in 2D (r = r0 + Q r1).
template <int P, int Q, bool LOWER, typename V>
__device__ V cell_action_2d(const PaArgs<V>& a, index_type e, int r, bool active, V u, const V* sB, const V* sD,
                            V (&b)[5][points_of<2, Q>])
{
    V g[2], value, v[2];
    reference_gradient_2d<P, Q, LOWER>(r, u, sB, sD, b, g, value);
    const V s = point_step_2d<LOWER>(a, e, r, active, g, value, v);
    return transposed_contractions_2d<Q, LOWER>(r, v, s, P, sB, sD, b);
}

/// cell_action_2d or cell_action_3d.
template <int DIM, int P, int Q, bool LOWER, typename V>
__device__ V cell_action(const PaArgs<V>& a, index_type e, int r, bool active, V u, const V* sB, const V* sD,
                         V (&b)[buffers_of<DIM>][points_of<DIM, Q>])
{
    if constexpr (DIM == 2) return cell_action_2d<P, Q, LOWER>(a, e, r, active, u, sB, sD, b);
    else return cell_action_3d<P, Q, LOWER>(a, e, r, active, u, sB, sD, b);
}

/// The 1D table a transposed contraction of a cell's diagonal or loads uses along one
/// direction: B, or a product of two of B and D (the squared basis, basis times derivative,
/// squared derivative), formed from the shared tables as it is read.
enum class Table1d : int { b, bb, bd, dd };

template <int P, typename V>
__device__ inline V table_1d(Table1d t, const V* sB, const V* sD, int q, int i)
{
    const V b = sB[q * P + i], d = sD[q * P + i];
    switch (t) {
    case Table1d::b: return b;
    case Table1d::bb: return b * b;
    case Table1d::bd: return b * d;
    default: return d * d;
    }
}

/// sum_q w(q) T_x[qx][r0] T_y[qy][r1] (T_z[qz][r2]) at this thread's node from w, the value
/// at this thread's point: transposed contractions along z, y, then x through buffers
/// b[0..2]; 0 on threads past the nodes. Block barriers inside; a following call may reuse
/// the buffers at once.
template <int DIM, int P, int Q, typename V>
__device__ V transposed_tensor(int r, V w, Table1d tx, Table1d ty, Table1d tz, const V* sB, const V* sD,
                               V (&b)[buffers_of<DIM>][points_of<DIM, Q>])
{
    const int r0 = r % Q, r1 = (r / Q) % Q, r2 = DIM == 2 ? 0 : r / (Q * Q);
    b[0][r] = w;
    __syncthreads();
    if constexpr (DIM == 3) {
        if (r2 < P) {
            V sum = 0;
#pragma unroll
            for (int qz = 0; qz < Q; ++qz) sum += table_1d<P>(tz, sB, sD, qz, r2) * b[0][r0 + Q * (r1 + Q * qz)];
            b[1][r] = sum;
        }
    } else {
        b[1][r] = b[0][r];
    }
    __syncthreads();
    if (r1 < P && r2 < P) {
        V sum = 0;
#pragma unroll
        for (int qy = 0; qy < Q; ++qy) sum += table_1d<P>(ty, sB, sD, qy, r1) * b[1][r0 + Q * (qy + Q * r2)];
        b[2][r] = sum;
    }
    __syncthreads();
    V sum = 0;
    if (r0 < P && r1 < P && r2 < P) {
#pragma unroll
        for (int qx = 0; qx < Q; ++qx) sum += table_1d<P>(tx, sB, sD, qx, r0) * b[2][qx + Q * (r1 + Q * r2)];
    }
    return sum;
}

/// K_e(l, l) at this thread's node l of cell e (see pa::cell_diagonal), by sum factorisation:
/// each term of sum_q dN_l^T G dN_l (+ N_l beta . dN_l + (w |det J| c) N_l^2) is a product of
/// 1D tables per direction (the squared derivative along a diagonal entry's direction, basis
/// times derivative along an off-diagonal entry's two, the squared basis elsewhere), so each
/// is one transposed contraction of the point factor. active: the slot holds a cell. Every
/// thread of the block calls it; 0 on threads past the nodes.
template <int DIM, int P, int Q, bool LOWER, typename V>
__device__ V cell_diagonal_by_tensors(const PaArgs<V>& a, index_type e, int r, bool active, const V* sB,
                                      const V* sD, V (&b)[buffers_of<DIM>][points_of<DIM, Q>])
{
    constexpr int packed = DIM * (DIM + 1) / 2;
    const auto factor_at = [&](int c) { return active ? pa_factor(a, c, e, r) : V(0); };
    const auto direction_table = [](int dir, int first, int second) {
        const int hits = (dir == first) + (dir == second);
        return hits == 2 ? Table1d::dd : hits == 1 ? Table1d::bd : Table1d::bb;
    };
    V sum = 0;
    for (int c = 0, s = 0; c < DIM; ++c)
        for (int c2 = c; c2 < DIM; ++c2, ++s) {
            const V w = (c == c2 ? V(1) : V(2)) * factor_at(s);
            sum += transposed_tensor<DIM, P, Q>(r, w, direction_table(0, c, c2), direction_table(1, c, c2),
                                                direction_table(2, c, c2), sB, sD, b);
        }
    if constexpr (LOWER) {
        for (int c = 0; c < DIM; ++c)
            sum += transposed_tensor<DIM, P, Q>(r, factor_at(packed + c), direction_table(0, c, -1),
                                                direction_table(1, c, -1), direction_table(2, c, -1), sB, sD, b);
        sum += transposed_tensor<DIM, P, Q>(r, factor_at(packed + DIM), Table1d::bb, Table1d::bb, Table1d::bb, sB,
                                            sD, b);
    }
    return sum;
}

#include "assembly/cuda/pa_column_apply.cuh"

/// The apply: a thread per quadrature point, cells_per_block cells to a block.
template <int DIM, int P, int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(cells_per_block<DIM, Q> * points_of<DIM, Q>)
    apply_kernel(PaArgs<V> a, index_type begin, index_type end, V alpha, const V* __restrict__ x, V* __restrict__ y,
                 PaColumns columns)
{
    constexpr int T = points_of<DIM, Q>, E = cells_per_block<DIM, Q>, N = DIM == 2 ? P * P : P * P * P;
    __shared__ V sB[Q * P], sD[Q * P];
    __shared__ V buffers[E][buffers_of<DIM>][T];
    load_tables(a, sB, sD, Q * P);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    const index_type e = begin + static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < end;
    const int l = active ? node_of_thread<DIM, P, Q>(r) : -1;
    const index_type stored = l >= 0 ? a.nodes[static_cast<long long>(e) * N + l] : -1;
    const V u = l >= 0 ? gathered(x, stored, columns) : V(0);
    const V sum = cell_action<DIM, P, Q, LOWER>(a, e, r, active, u, sB, sD, buffers[slot]);
    if (l >= 0 && stored >= 0) atomicAdd(&y[stored], alpha * sum);
}

/// The loads (loads given, see pa_loads) or the diagonal (loads null, see pa_diagonal) added at
/// the nodes: a thread per quadrature point, cells_per_block cells to a block; the loads by the
/// transposed contraction of w |det J| f with the basis, the diagonal by
/// cell_diagonal_by_tensors.
template <int DIM, int P, int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(cells_per_block<DIM, Q> * points_of<DIM, Q>)
    node_sums_kernel(PaArgs<V> a, const V* __restrict__ loads, V* out)
{
    constexpr int T = points_of<DIM, Q>, E = cells_per_block<DIM, Q>, N = DIM == 2 ? P * P : P * P * P;
    __shared__ V sB[Q * P], sD[Q * P];
    __shared__ V buffers[E][buffers_of<DIM>][T];
    load_tables(a, sB, sD, Q * P);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    const index_type e = static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < a.cells;
    V sum;
    if (loads) {
        const V w = active ? loads[static_cast<long long>(e) * T + r] : V(0);
        sum = transposed_tensor<DIM, P, Q>(r, w, Table1d::b, Table1d::b, Table1d::b, sB, sD, buffers[slot]);
    } else {
        sum = cell_diagonal_by_tensors<DIM, P, Q, LOWER>(a, e, r, active, sB, sD, buffers[slot]);
    }
    const int l = active ? node_of_thread<DIM, P, Q>(r) : -1;
    if (l >= 0) atomicAdd(&out[decoded(a.nodes[static_cast<long long>(e) * N + l])], sum);
}

/// The point factors of 3D cells (see pa_point_factors): a thread per point, cells_per_block
/// cells to a block; the Jacobian's rows are the reference gradients of the nodes' x, y and z
/// coordinates, by the apply's contractions. Each cell's sign class goes into tally (see
/// jacobian_tally.cuh): the sign at rule point 0, or 0 and the lowest rule point where det J is
/// zero, not finite or of the other sign.
template <int P, typename V>
__global__ void __launch_bounds__(cells_per_block<3, P> * points_of<3, P>)
    tensor_point_factors_kernel(ElementArgs<V> a, PaArgs<V> tensor, const int* __restrict__ rule_of_lex, V* factors,
                                V* loads, unsigned long long* tally)
{
    constexpr int T = points_of<3, P>, E = cells_per_block<3, P>, N = P * P * P;
    __shared__ V sB[P * P], sD[P * P];
    __shared__ V buffers[E][buffers_of<3>][T];
    __shared__ int first_sign[E], first_bad[E];
    load_tables(tensor, sB, sD, P * P);
    const int slot = threadIdx.x / T, r = threadIdx.x % T;
    if (r == 0) first_bad[slot] = INT_MAX;  // read after the contractions' barriers
    const index_type e = static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < a.num_cells;
    const int l = active ? node_of_thread<3, P, P>(r) : -1;
    const V* x = l >= 0 ? a.coordinates + 3 * static_cast<long long>(decoded(tensor.nodes[static_cast<long long>(e) * N + l]))
                        : nullptr;
    V J[3][3], value;
    for (int d = 0; d < 3; ++d) reference_gradient_3d<P, P, false>(r, x ? x[d] : V(0), sB, sD, buffers[slot], J[d], value);
    const int sign = active ? jacobian_sign<3>(J) : 0;  // as the check before assembly finds it
    if (active && rule_of_lex[r] == 0) first_sign[slot] = sign;
    __syncthreads();
    if (active && (sign == 0 || sign != first_sign[slot])) atomicMin(&first_bad[slot], rule_of_lex[r]);
    __syncthreads();
    if (active && r == 0) {
        const int bad = first_bad[slot];
        tally_cell(e, bad == INT_MAX ? first_sign[slot] : 0, bad, T, tally);
    }
    if (!active) return;
    V geo[geometry_stride<3>(true)];
    point_geometry_of_jacobian<3>(a, e, rule_of_lex[r], J, geo);
    pa::store_point_geometry<3>(a, e, r, T, geo, factors, loads);
}

/// p-multigrid's coarse operator of one cell per block (see pa_element_galerkin): K~_e P
/// column by column into shared memory (kp, dynamic: `chunk` columns x nodes at a time), then
/// those columns of P^T (K~_e P).
template <int DIM, int P, int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(points_of<DIM, Q>)
    galerkin_kernel(PaArgs<V> a, int ncl, int chunk, const V* __restrict__ p, CellCoarsening coarsening,
                    const index_type* __restrict__ cell_to_csr, V* values, bool dirichlet_cells_only)
{
    constexpr int T = points_of<DIM, Q>, N = DIM == 2 ? P * P : P * P * P;
    __shared__ V sB[Q * P], sD[Q * P];
    __shared__ V buffers[buffers_of<DIM>][T];
    extern __shared__ unsigned char dynamic_shared[];
    V* kp = reinterpret_cast<V*>(dynamic_shared);
    load_tables(a, sB, sD, Q * P);
    const int r = threadIdx.x;
    const int node = node_of_thread<DIM, P, Q>(r);
    const bool is_node = node >= 0;
    const int l = is_node ? node : 0;
    const index_type e = blockIdx.x;
    const index_type stored = is_node ? a.nodes[static_cast<long long>(e) * N + l] : -1;
    const V* pe = p + static_cast<long long>(coarsening.child_of(e)) * N * ncl;
    // The cell's diagonal, for its Dirichlet rows (the block leaves it together when it has none).
    const bool has_dirichlet = __syncthreads_or(is_node && stored < 0);
    if (dirichlet_cells_only && !has_dirichlet) return;  // the whole block: galerkin_tensor_kernel's cell
    const V diagonal = has_dirichlet ? cell_diagonal_by_tensors<DIM, P, Q, LOWER>(a, e, r, true, sB, sD, buffers) : V(0);
    const index_type* at = cell_to_csr + coarsening.coarse_cell(e) * ncl * ncl;
    for (int first = 0; first < ncl; first += chunk) {
        const int columns = min(chunk, ncl - first);
        for (int k = 0; k < columns; ++k) {
            const int column = first + k;
            const V u = is_node && stored >= 0 ? pe[l * ncl + column] : V(0);
            const V y = cell_action<DIM, P, Q, LOWER>(a, e, r, true, u, sB, sD, buffers);
            if (is_node) kp[k * N + l] = stored < 0 ? diagonal * pe[l * ncl + column] : y;
            __syncthreads();  // the next column's first step overwrites the buffers; kp complete
        }
        for (int m = r; m < ncl * columns; m += T) {
            const int i = m / columns, k = m % columns;
            V sum = 0;
            for (int n = 0; n < N; ++n) sum += pe[n * ncl + i] * kp[k * N + n];
            atomicAdd(&values[at[i * ncl + first + k]], sum);
        }
        __syncthreads();  // kp read before the next chunk overwrites it
    }
}

/// Blocks of cells_per_block cells of `cells` cells.
template <int DIM, int P>
unsigned cell_blocks(index_type cells)
{
    constexpr int E = cells_per_block<DIM, P>;
    return static_cast<unsigned>((static_cast<long long>(cells) + E - 1) / E);
}

/// p-multigrid's coarse operator of a 3D cell without Dirichlet nodes by sum factorisation
/// (see pa_element_galerkin_tensor): a block per cell, a thread per point (Q per direction,
/// the fine nodes too); per coarse column m its gradients at the point are products of the
/// coarse tables' entries, G (and the lower-order factors) applied in registers, then the
/// transposed contractions with the coarse tables to the coarse nodes.
template <int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(points_of<3, Q>)
    galerkin_tensor_kernel(PaArgs<V> a, int pc, const V* __restrict__ coarse_basis,
                           const V* __restrict__ coarse_derivative, const int* __restrict__ local_of_lex,
                           const index_type* __restrict__ cell_to_csr, V* values)
{
    constexpr int T = points_of<3, Q>;
    __shared__ V sB[Q * Q], sD[Q * Q];
    __shared__ V buffers[buffers_of<3>][T];
    __shared__ int local[T];
    const int ncl = pc * pc * pc, r = threadIdx.x;
    for (int i = r; i < Q * pc; i += T) {
        sB[i] = coarse_basis[i];
        sD[i] = coarse_derivative[i];
    }
    for (int i = r; i < ncl; i += T) local[i] = local_of_lex[i];
    const index_type e = blockIdx.x;
    if (__syncthreads_or(a.nodes[static_cast<long long>(e) * T + r] < 0)) return;  // the general kernel's cell
    V f[10];
#pragma unroll
    for (int c = 0; c < (LOWER ? 10 : 6); ++c) f[c] = pa_factor(a, c, e, r);
    const int r0 = r % Q, r1 = (r / Q) % Q, r2 = r / (Q * Q);
    const bool is_coarse = r0 < pc && r1 < pc && r2 < pc;
    const index_type* at = cell_to_csr + static_cast<long long>(e) * ncl * ncl;
    const int row = is_coarse ? local[r0 + pc * (r1 + pc * r2)] : 0;
    for (int m = 0; m < ncl; ++m) {
        const int mx = m % pc, my = (m / pc) % pc, mz = m / (pc * pc);
        const V bx = sB[r0 * pc + mx], by = sB[r1 * pc + my], bz = sB[r2 * pc + mz];
        const V g[3] = {sD[r0 * pc + mx] * by * bz, bx * sD[r1 * pc + my] * bz, bx * by * sD[r2 * pc + mz]};
        const V v[3] = {f[0] * g[0] + f[1] * g[1] + f[2] * g[2], f[1] * g[0] + f[3] * g[1] + f[4] * g[2],
                        f[2] * g[0] + f[4] * g[1] + f[5] * g[2]};
        const V s = LOWER ? f[6] * g[0] + f[7] * g[1] + f[8] * g[2] + f[9] * bx * by * bz : V(0);
        __syncthreads();  // the previous column's last contraction has read the buffers
        const V y = transposed_contractions_3d<Q, LOWER>(r, v, s, pc, sB, sD, buffers);
        if (is_coarse) atomicAdd(&values[at[row * ncl + local[m]]], y);
    }
}

/// Whether the 3D apply with P nodes (and points) per direction runs a thread per column of
/// points rather than one per point: measured faster at 3 and from 5 nodes per direction (up
/// to 1.54x at 8), slower at 2 and 4 (see docs/performance.md).
template <int P>
constexpr bool applies_by_columns()
{
    return P == 3 || P >= 5;
}

/// Calls fn.template operator()<DIM, LOWER>() for a's dimension and lower-order terms.
template <typename V, typename Fn>
void with_dimension_and_terms(const PaArgs<V>& a, Fn&& fn)
{
    if (a.dim == 2) {
        if (a.lower_order) fn.template operator()<2, true>();
        else fn.template operator()<2, false>();
    } else {
        if (a.lower_order) fn.template operator()<3, true>();
        else fn.template operator()<3, false>();
    }
}

/// Calls fn.template operator()<DIM, P, LOWER>() for a's dimension, nodes per direction
/// (P = Q: the assembly's Gauss rule has as many points per direction as nodes) and
/// lower-order terms; throws for sizes without a kernel.
template <typename V, typename Fn>
void with_kernel_sizes(const PaArgs<V>& a, Fn&& fn)
{
    if (a.q1 != a.p1)
        throw std::invalid_argument("format pa: the CUDA kernels take as many points as nodes per direction");
    const auto for_degree = [&]<int DIM, bool LOWER>() {
        switch (a.p1) {
        case 2: return fn.template operator()<DIM, 2, LOWER>();
        case 3: return fn.template operator()<DIM, 3, LOWER>();
        case 4: return fn.template operator()<DIM, 4, LOWER>();
        case 5: return fn.template operator()<DIM, 5, LOWER>();
        case 6: return fn.template operator()<DIM, 6, LOWER>();
        case 7: return fn.template operator()<DIM, 7, LOWER>();
        case 8: return fn.template operator()<DIM, 8, LOWER>();
        case 9: return fn.template operator()<DIM, 9, LOWER>();
        default: throw std::invalid_argument("format pa: no CUDA kernel for degree " + std::to_string(a.p1 - 1));
        }
    };
    with_dimension_and_terms(a, for_degree);
}

/// Calls fn.template operator()<DIM, P, Q, LOWER>() for a coarse level on a finer operator's
/// points (PaOperator::coarse_level: p-multigrid's first lower degree on the points of the
/// fine one: half of degrees 4, 6 and 8, and degree 3 under 7; every pair the CUDA
/// operators of degrees up to 8 make); throws for other sizes.
template <typename V, typename Fn>
void with_coarse_kernel_sizes(const PaArgs<V>& a, Fn&& fn)
{
    const auto for_sizes = [&]<int DIM, bool LOWER>() {
        if (a.p1 == 3 && a.q1 == 5) return fn.template operator()<DIM, 3, 5, LOWER>();
        if (a.p1 == 4 && a.q1 == 7) return fn.template operator()<DIM, 4, 7, LOWER>();
        if (a.p1 == 4 && a.q1 == 8) return fn.template operator()<DIM, 4, 8, LOWER>();
        if (a.p1 == 5 && a.q1 == 9) return fn.template operator()<DIM, 5, 9, LOWER>();
        throw std::invalid_argument("format pa: no CUDA kernel for " + std::to_string(a.p1) + " nodes on " +
                                    std::to_string(a.q1) + " points per direction");
    };
    with_dimension_and_terms(a, for_sizes);
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

namespace {

/// pa_cell_factors: a thread per cell; *differs = 1 when a cell's factors are not its cell
/// factors times the weights.
template <typename V>
__global__ void cell_factors_kernel(PaArgs<V> a, const V* __restrict__ weights, V* cell_factors, int* differs)
{
    const long long e = thread_index();
    if (e >= a.cells) return;
    if (!pa::cell_factors_of(a, weights, static_cast<index_type>(e), cell_factors)) *differs = 1;
}

}  // namespace

template <typename V>
bool pa_cell_factors(const Executor& exec, const PaArgs<V>& a, const V* weights, V* cell_factors)
{
    if (a.cells == 0) return true;
    const cudaStream_t stream = stream_of(exec);
    const DeviceBuffer differs(exec, sizeof(int));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(differs.as<void>(), 0, sizeof(int), stream));
    cell_factors_kernel<<<grid_for(a.cells), block_size, 0, stream>>>(a, weights, cell_factors, differs.as<int>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    int host = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, differs.as<void>(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host == 0;
}

template <typename V>
JacobianSigns pa_point_factors(const Executor& exec, const ElementArgs<V>& a, const PaArgs<V>& tensor,
                               const int* rule_of_lex, V* factors, V* loads)
{
    const long long n = static_cast<long long>(a.num_cells) * a.num_points;
    if (n == 0) return {};
    if (a.dim == 2) {
        point_factors_kernel<2><<<grid_for(n), block_size, 0, stream_of(exec)>>>(a, rule_of_lex, factors, loads);
        GPUFEM_CUDA_CHECK_LAUNCH();
        return jacobian_signs(exec, a);
    }
    const JacobianTally counters(exec);
    with_kernel_sizes(tensor, [&]<int DIM, int P, bool LOWER>() {
        if constexpr (DIM == 3) {
            const unsigned threads = cells_per_block<3, P> * points_of<3, P>;
            tensor_point_factors_kernel<P><<<cell_blocks<3, P>(a.num_cells), threads, 0, stream_of(exec)>>>(
                a, tensor, rule_of_lex, factors, loads, counters.data());
        }
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
    return counters.read();
}

namespace {

/// node_sums_kernel over a's cells.
template <typename V>
void add_node_sums(const Executor& exec, const PaArgs<V>& a, const V* loads, V* out)
{
    if (a.cells == 0) return;
    with_kernel_sizes(a, [&]<int DIM, int P, bool LOWER>() {
        const unsigned threads = cells_per_block<DIM, P> * points_of<DIM, P>;
        node_sums_kernel<DIM, P, P, LOWER><<<cell_blocks<DIM, P>(a.cells), threads, 0, stream_of(exec)>>>(a, loads, out);
        GPUFEM_CUDA_CHECK_LAUNCH();
    });
}

}  // namespace

template <typename V>
void pa_loads(const Executor& exec, const PaArgs<V>& a, const V* loads, V* rhs)
{
    add_node_sums(exec, a, loads, rhs);
}

template <typename V>
void pa_diagonal(const Executor& exec, const PaArgs<V>& a, V* diag)
{
    if (a.q1 == a.p1) {
        add_node_sums(exec, a, static_cast<const V*>(nullptr), diag);
        return;
    }
    if (a.cells == 0) return;
    with_coarse_kernel_sizes(a, [&]<int DIM, int P, int Q, bool LOWER>() {  // a coarse level
        const unsigned threads = cells_per_block<DIM, Q> * points_of<DIM, Q>;
        node_sums_kernel<DIM, P, Q, LOWER><<<cell_blocks<DIM, Q>(a.cells), threads, 0, stream_of(exec)>>>(
            a, static_cast<const V*>(nullptr), diag);
        GPUFEM_CUDA_CHECK_LAUNCH();
    });
}

template <typename V>
void pa_apply_cells(const Executor& exec, const PaArgs<V>& a, index_type begin, index_type end, V alpha, const V* x,
                    V* y, PaColumns columns)
{
    if (end <= begin) return;
    if (a.q1 != a.p1) {  // a coarse level on a finer operator's points: a thread per point
        with_coarse_kernel_sizes(a, [&]<int DIM, int P, int Q, bool LOWER>() {
            constexpr int E = cells_per_block<DIM, Q>;
            const unsigned blocks = static_cast<unsigned>((static_cast<long long>(end - begin) + E - 1) / E);
            apply_kernel<DIM, P, Q, LOWER><<<blocks, E * points_of<DIM, Q>, 0, stream_of(exec)>>>(a, begin, end, alpha,
                                                                                              x, y, columns);
            GPUFEM_CUDA_CHECK_LAUNCH();
        });
        return;
    }
    with_kernel_sizes(a, [&]<int DIM, int P, bool LOWER>() {
        if constexpr (DIM == 3 && applies_by_columns<P>()) {
            constexpr int E = column_cells<P>;  // Q = P: Q^2 threads a cell
            const unsigned blocks = static_cast<unsigned>((static_cast<long long>(end - begin) + E - 1) / E);
            column_apply_kernel<P, P, LOWER><<<blocks, E * P * P, 0, stream_of(exec)>>>(a, begin, end, alpha, x, y,
                                                                                       columns);
        } else {
            constexpr int E = cells_per_block<DIM, P>;
            const unsigned blocks = static_cast<unsigned>((static_cast<long long>(end - begin) + E - 1) / E);
            const unsigned threads = E * points_of<DIM, P>;
            apply_kernel<DIM, P, P, LOWER><<<blocks, threads, 0, stream_of(exec)>>>(a, begin, end, alpha, x, y,
                                                                                    columns);
        }
        GPUFEM_CUDA_CHECK_LAUNCH();
    });
}

template <typename V>
void pa_element_galerkin(const Executor& exec, const PaArgs<V>& a, int ncl, const V* p, const CellCoarsening& coarsening,
                         const index_type* cell_to_csr, V* values, bool dirichlet_cells_only)
{
    if (a.cells == 0) return;
    with_kernel_sizes(a, [&]<int DIM, int P, bool LOWER>() {
        // Every column of K~_e P at once where they fit beside the static buffers in the 48 KB
        // a block has without opting in; else as many as the device lets a block opt in to
        // (31 of 125 from degree 8 to 4 in 3D), the block then alone on its SM.
        constexpr std::size_t static_bytes = sizeof(V) * (buffers_of<DIM> * points_of<DIM, P> + 2 * P * P);
        const std::size_t column_bytes = sizeof(V) * pa_nodes_per_cell(a);
        const auto kernel = galerkin_kernel<DIM, P, P, LOWER, V>;
        std::size_t limit = 48 * 1024;
        if (static_bytes + column_bytes * static_cast<std::size_t>(ncl) > limit) {
            int device = 0, optin = 0;
            GPUFEM_CUDA_CHECK(cudaGetDevice(&device));
            GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
            limit = std::max(limit, static_cast<std::size_t>(optin));
        }
        const int chunk = static_cast<int>(
            std::clamp<std::size_t>((limit - static_bytes) / column_bytes, 1, static_cast<std::size_t>(ncl)));
        const std::size_t dynamic = chunk * column_bytes;
        if (static_bytes + dynamic > 48 * 1024)  // the limit holds for both together
            GPUFEM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(dynamic)));
        kernel<<<a.cells, points_of<DIM, P>, dynamic, stream_of(exec)>>>(a, ncl, chunk, p, coarsening, cell_to_csr,
                                                                         values, dirichlet_cells_only);
        GPUFEM_CUDA_CHECK_LAUNCH();
    });
}

template <typename V>
void pa_element_galerkin_tensor(const Executor& exec, const PaArgs<V>& a, int pc, const V* coarse_basis,
                                const V* coarse_derivative, const int* local_of_lex, const index_type* cell_to_csr,
                                V* values)
{
    if (a.cells == 0) return;
    if (a.dim != 3 || pc > a.q1)
        throw std::invalid_argument("pa_element_galerkin_tensor: the CUDA kernel takes 3D cells and coarser degrees");
    with_kernel_sizes(a, [&]<int DIM, int P, bool LOWER>() {
        if constexpr (DIM == 3) {
            galerkin_tensor_kernel<P, LOWER><<<a.cells, points_of<3, P>, 0, stream_of(exec)>>>(
                a, pc, coarse_basis, coarse_derivative, local_of_lex, cell_to_csr, values);
            GPUFEM_CUDA_CHECK_LAUNCH();
        }
    });
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(pa_point_factors, pa_cell_factors, pa_loads, pa_diagonal, pa_apply_cells,
                                   pa_element_galerkin, pa_element_galerkin_tensor)

}  // namespace gpufem::kernels::cuda
