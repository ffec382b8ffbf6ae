#pragma once
// The CUDA apply kernels of the LMA operator (one per LmaKernel; included by lma_kernels.cu
// only). Each adds alpha P^T K_e P x into y for the cells at positions [begin, end), with
// atomics or, for the colour variant (cells of one colour share no node), plain adds. Within a
// kernel the order of the additions is fixed, so the colour variant is bitwise reproducible.
#include <cstddef>

#include "assembly/lma_kernels.hpp"

namespace gpufem::kernels::cuda::lma {

/// Threads per block of the cell kernel (fewer when its shared columns need more than 48 KB).
constexpr int cell_block = 128;

template <typename V>
__device__ __forceinline__ index_type load_node(const LmaArgs<V>& a, int i, index_type p)
{
    return __ldg(a.connectivity + static_cast<std::size_t>(i) * a.stride + p);
}

/// x at a stored node: zero for a Dirichlet node (~node < 0) and for padding (-1).
template <typename V>
__device__ __forceinline__ V gather(const V* __restrict__ x, index_type n)
{
    return n < 0 ? V(0) : __ldg(x + n);
}

template <typename V>
__device__ __forceinline__ void add_to(V* y, index_type n, V value, bool atomic)
{
    if (atomic) atomicAdd(y + n, value);
    else y[n] += value;
}

extern __shared__ __align__(16) unsigned char lma_shared[];

// ---------------------------------------------------------------------------------------
// cell: one thread per cell. x_e and the node indices sit in shared memory in per-thread
// columns ([j][thread], conflict-free), so the thread needs few registers whatever npe.
// Full storage: row i is streamed and its sum scattered at once. Symmetric: packed row i
// (j >= i) is streamed once; its entries also feed the column sums c_j (j > i) kept in
// shared memory, and y_i = c_i + sum_{j >= i} K_ij x_j is final after row i.
// Shared memory: npe * blockDim * (sizeof(V) * (1 + symmetric) + sizeof(index_type)).
template <typename V, bool Symmetric>
__global__ void __launch_bounds__(cell_block)
    apply_cell_kernel(LmaArgs<V> a, index_type begin, index_type end, V alpha,
                      const V* __restrict__ x, V* __restrict__ y, bool atomic)
{
    const int t = threadIdx.x, T = blockDim.x, npe = a.npe;
    V* xs = reinterpret_cast<V*>(lma_shared);
    V* cs = xs + npe * T;
    index_type* ns = reinterpret_cast<index_type*>(cs + (Symmetric ? npe * T : 0));
    const index_type p = begin + static_cast<index_type>(blockIdx.x) * T + t;
    if (p >= end) return;
    for (int j = 0; j < npe; ++j) {
        const index_type n = load_node(a, j, p);
        ns[j * T + t] = n;
        xs[j * T + t] = gather(x, n);
        if (Symmetric) cs[j * T + t] = V(0);
    }
    const std::size_t s = a.stride;
    const V* m = a.matrices + p;
    if (!Symmetric) {
        for (int i = 0; i < npe; ++i) {
            const index_type n = ns[i * T + t];
            if (n < 0) continue;
            const V* row = m + static_cast<std::size_t>(i) * npe * s;
            V sum = 0;
#pragma unroll 8
            for (int j = 0; j < npe; ++j) sum += __ldg(row + j * s) * xs[j * T + t];
            add_to(y, n, alpha * sum, atomic);
        }
        return;
    }
    std::size_t k = 0;  // packed index of (i, i)
    for (int i = 0; i < npe; ++i) {
        const index_type n = ns[i * T + t];
        if (n >= 0) {  // a Dirichlet row has x_i = 0 (no column terms) and is skipped
            const V xi = xs[i * T + t];
            const V* row = m + (k - i) * s;  // row[j * s] = packed (i, j), j >= i
            V sum = cs[i * T + t] + __ldg(row + i * s) * xi;
#pragma unroll 8
            for (int j = i + 1; j < npe; ++j) {
                const V v = __ldg(row + j * s);
                sum += v * xs[j * T + t];
                cs[j * T + t] += v * xi;
            }
            add_to(y, n, alpha * sum, atomic);
        }
        k += npe - i;
    }
}

// ---------------------------------------------------------------------------------------
// tile: a block per tile of T cells (T = 32, or 16 / 8 for launches of few cells; cell =
// thread % T), the block's groups of T threads take the rows i = group, group + groups, ...
// The tile's node indices and x_e are staged once in shared memory ([j][cell]); each row is
// then a stream of coalesced loads (a group's T consecutive cells fill whole 32-byte
// sectors). Symmetric: row i reads (j, i) for j < i from the packed rows above it and (i, j),
// j >= i, from its own, so every packed entry is read twice, the second time from L1/L2 if
// still there (it is for small npe; see twin for large).
// Shared memory: npe * T * (sizeof(V) + sizeof(index_type)).
template <int T, typename V, bool Symmetric>
__global__ void __launch_bounds__(256)
    apply_tile_kernel(LmaArgs<V> a, index_type begin, index_type end, V alpha,
                      const V* __restrict__ x, V* __restrict__ y, bool atomic)
{
    const int npe = a.npe, cell = threadIdx.x % T, group = threadIdx.x / T;
    const int groups = blockDim.x / T;
    V* xs = reinterpret_cast<V*>(lma_shared);
    index_type* ns = reinterpret_cast<index_type*>(xs + npe * T);
    const index_type p = begin + static_cast<index_type>(blockIdx.x) * T + cell;
    const bool active = p < end;
    for (int j = group; j < npe; j += groups) {
        const index_type n = active ? load_node(a, j, p) : index_type(-1);
        ns[j * T + cell] = n;
        xs[j * T + cell] = gather(x, n);
    }
    __syncthreads();
    if (!active) return;
    const std::size_t s = a.stride;
    const V* m = a.matrices + p;
    for (int i = group; i < npe; i += groups) {
        const index_type n = ns[i * T + cell];
        if (n < 0) continue;
        V sum = 0;
        if (!Symmetric) {
            const V* row = m + static_cast<std::size_t>(i) * npe * s;
#pragma unroll 8
            for (int j = 0; j < npe; ++j) sum += __ldg(row + j * s) * xs[j * T + cell];
        } else {
            std::size_t k = i;  // packed (0, i); packed (j + 1, i) = packed (j, i) + npe - 1 - j
#pragma unroll 4
            for (int j = 0; j < i; ++j) {
                sum += __ldg(m + k * s) * xs[j * T + cell];
                k += npe - 1 - j;
            }
            const V* row = m + (k - i) * s;  // k is now packed (i, i)
#pragma unroll 8
            for (int j = i; j < npe; ++j) sum += __ldg(row + j * s) * xs[j * T + cell];
        }
        add_to(y, n, alpha * sum, atomic);
    }
}

// ---------------------------------------------------------------------------------------
// twin: a block per tile of T cells (T = 32, 16 or 8; lane % T = cell), one group of T
// threads per block of S consecutive rows (group I owns rows I*S .. I*S+S-1 and keeps their
// sums in registers). In round r group I takes the column block J = (2r - I) mod rounds
// (rounds odd: the round-robin "circle" schedule, so J's partner in that round is I, and
// over the rounds every J comes up once). Symmetric storage: the packed block
// (min(I,J), max(I,J)) is read by both groups I and J in the same round (one by rows, one by
// columns); a barrier per round keeps the twins in step so that the second read hits L1 and
// DRAM sees each entry once. Full storage: each group reads its own rows once. Smaller T
// gives more blocks for launches of few cells (a colour of a high-order 3D mesh); a group's
// T consecutive cells still read whole 32-byte sectors. Groups: ceil(npe / S) <= 1024 / T.
// Shared memory: groups * S * T * sizeof(V) (x_e).
/// Start of packed row i: the packed index of (i, j), i <= j, is lma_packed_index(npe, i, j)
/// = packed_row_start(npe, i) + j.
__device__ __forceinline__ int packed_row_start(int npe, int i) { return i * npe - i * (i + 1) / 2; }

/// One round of the twin kernel for the thread's rows fi .. fi+S-1 against the columns
/// fj .. fj+S-1: yi += K(rows, cols) xj. own[a] is where row fi + a starts (packed row start
/// or (fi + a) * npe); Whole: no ragged edge (rows and cols both S), no bounds tests.
template <int S, bool Whole, typename V, bool Symmetric>
__device__ __forceinline__ void twin_block(const V* m, std::size_t s, int npe, int fi, int fj,
                                           int rows, int cols, const int (&own)[S],
                                           const V (&xj)[S], V (&yi)[S])
{
    if (fi == fj) {  // diagonal block: symmetric storage holds its upper triangle
#pragma unroll
        for (int a = 0; a < S; ++a) {
            if (!Whole && a >= rows) continue;
            const int first = Symmetric ? a : 0;
            const V* q = m + static_cast<std::size_t>(own[a] + fi + first) * s;
#pragma unroll
            for (int b = first; b < S; ++b) {
                if (!Whole && b >= rows) continue;
                const V v = __ldg(q + (b - first) * s);
                yi[a] += v * xj[b];
                if (Symmetric && b != a) yi[b] += v * xj[a];
            }
        }
        return;
    }
    if (!Symmetric || fi < fj) {  // the block by rows: (fi + a, fj + b) at own[a] + fj + b
#pragma unroll
        for (int a = 0; a < S; ++a) {
            if (!Whole && a >= rows) continue;
            const V* q = m + static_cast<std::size_t>(own[a] + fj) * s;
            V sum = 0;
#pragma unroll
            for (int b = 0; b < S; ++b)
                if (Whole || b < cols) sum += __ldg(q + b * s) * xj[b];
            yi[a] += sum;
        }
        return;
    }
    // Symmetric, fi > fj: the stored block (fj, fi) by its rows b, (fj + b, fi + a) at
    // start(fj + b) + fi + a, read as the transpose.
#pragma unroll
    for (int b = 0; b < S; ++b) {
        if (!Whole && b >= cols) continue;
        const V* q = m + static_cast<std::size_t>(packed_row_start(npe, fj + b) + fi) * s;
#pragma unroll
        for (int a = 0; a < S; ++a)
            if (Whole || a < rows) yi[a] += __ldg(q + a * s) * xj[b];
    }
}

template <int S, int T, typename V, bool Symmetric>
__global__ void __launch_bounds__(1024)
    apply_twin_kernel(LmaArgs<V> a, index_type begin, index_type end, int rounds, V alpha,
                      const V* __restrict__ x, V* __restrict__ y, bool atomic)
{
    const int npe = a.npe, cell = threadIdx.x % T, group = threadIdx.x / T;
    const int groups = (npe + S - 1) / S, rows = groups * S, stagers = blockDim.x / T;
    V* xs = reinterpret_cast<V*>(lma_shared);  // [rows][T]
    const index_type p = begin + static_cast<index_type>(blockIdx.x) * T + cell;
    const bool active = p < end && group < groups;
    for (int i = group; i < rows; i += stagers)
        xs[i * T + cell] = p < end && i < npe ? gather(x, load_node(a, i, p)) : V(0);
    __syncthreads();
    const std::size_t s = a.stride;
    const V* m = a.matrices + (p < end ? p : begin);
    const int fi = group * S;
    const int rows_i = npe - fi < S ? npe - fi : S;
    int own[S];  // where the thread's rows start in the stored matrix
    V yi[S];
#pragma unroll
    for (int c = 0; c < S; ++c) {
        own[c] = Symmetric ? packed_row_start(npe, fi + c) : (fi + c) * npe;
        yi[c] = V(0);
    }
    int bj = (rounds - group % rounds) % rounds;  // (2r - group) mod rounds at r = 0
    for (int r = 0; r < rounds; ++r) {
        if (active && bj < groups) {
            const int fj = bj * S;
            const int cols_j = npe - fj < S ? npe - fj : S;
            V xj[S];
#pragma unroll
            for (int c = 0; c < S; ++c) xj[c] = xs[(fj + c) * T + cell];
            if (rows_i == S && cols_j == S)
                twin_block<S, true, V, Symmetric>(m, s, npe, fi, fj, rows_i, cols_j, own, xj, yi);
            else
                twin_block<S, false, V, Symmetric>(m, s, npe, fi, fj, rows_i, cols_j, own, xj, yi);
        }
        bj += 2;
        if (bj >= rounds) bj -= rounds;
        __syncthreads();
    }
    if (!active) return;
#pragma unroll
    for (int c = 0; c < S; ++c) {
        if (fi + c < npe) {
            const index_type n = load_node(a, fi + c, p);
            if (n >= 0) add_to(y, n, alpha * yi[c], atomic);
        }
    }
}

// ---------------------------------------------------------------------------------------
/// Entry (i, j) of the cell at position p, from either storage (the Dirichlet lifting reads
/// single columns with it).
template <typename V>
__device__ __forceinline__ V any_entry(const LmaArgs<V>& a, index_type p, int i, int j)
{
    return __ldg(a.matrices + static_cast<std::size_t>(lma_entry_index(a.npe, a.symmetric, i, j)) * a.stride + p);
}

}  // namespace gpufem::kernels::cuda::lma
