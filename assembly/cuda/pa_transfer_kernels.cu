// p-multigrid's transfers by sum factorisation on CUDA. A block takes a few cells, a thread
// per fine node of each; the table and each cell's intermediate arrays live in shared memory,
// one contraction per direction, a thread per output entry, separated by block barriers.
#include <algorithm>

#include "assembly/pa_transfer_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

/// n^dim.
__host__ __device__ inline int per_cell(int dim, int n)
{
    return dim == 2 ? n * n : n * n * n;
}

/// Contracts the cell's array `in` (extents per direction, x fastest) along dir with the
/// table T (pf x pc, in shared memory) into `out`: forward pc -> pf, transposed pf -> pc (see
/// the CPU reference). The cell's threads (rank `lane` of `lanes`) share the output entries;
/// extent is updated to the output's.
template <typename V>
__device__ void contract(const V* in, V* out, int (&extent)[3], int dir, bool transposed, const V* table, int pf,
                         int pc, int lane, int lanes)
{
    const int from = extent[dir], to = transposed ? pc : pf;
    int inner = 1, outer = 1;
    for (int c = 0; c < dir; ++c) inner *= extent[c];
    for (int c = dir + 1; c < 3; ++c) outer *= extent[c];
    for (int o = lane; o < inner * to * outer; o += lanes) {
        const int i = o % inner, t = (o / inner) % to, rest = o / (inner * to);
        V sum = 0;
        for (int k = 0; k < from; ++k) {
            const V w = transposed ? table[k * pc + t] : table[t * pc + k];
            sum += w * in[(rest * from + k) * inner + i];
        }
        out[o] = sum;
    }
    extent[dir] = to;
}

/// Shared entries a cell's buffers take: two, each the largest array of a contraction chain.
__host__ __device__ inline int cell_buffer(int dim, int pf)
{
    return per_cell(dim, pf);
}

/// The transfer, a block per `cells_per_block` cells, `lanes` threads per cell: forward
/// (prolongation: gather the coarse values, contract to the fine nodes, write the owned ones)
/// or transposed (restriction: gather the owned fine values, contract to the coarse nodes,
/// atomics). Dynamic shared memory: the table, then two buffers per cell.
template <bool TRANSPOSED, typename V>
__global__ void transfer_kernel(PaTransferArgs<V> a, int cells_per_block, int lanes, V alpha, const V* __restrict__ x,
                                V* __restrict__ y)
{
    extern __shared__ unsigned char shared_bytes[];
    V* table = reinterpret_cast<V*>(shared_bytes);
    for (int i = threadIdx.x; i < a.pf * a.pc; i += blockDim.x) table[i] = a.table[i];
    const int slot = threadIdx.x / lanes, lane = threadIdx.x % lanes;
    const int buffer = cell_buffer(a.dim, a.pf);
    V* b0 = table + a.pf * a.pc + 2 * slot * buffer;
    V* b1 = b0 + buffer;
    const index_type e = static_cast<index_type>(blockIdx.x) * cells_per_block + slot;
    const bool active = slot < cells_per_block && e < a.cells;
    const int nf = per_cell(a.dim, a.pf), nc = per_cell(a.dim, a.pc);
    const int from = TRANSPOSED ? nf : nc;
    if (active)
        for (int t = lane; t < from; t += lanes) {
            if constexpr (TRANSPOSED) {
                const index_type u = a.fine[static_cast<long long>(e) * nf + t];
                b0[t] = u >= 0 ? __ldg(&x[u]) : V(0);
            } else {
                const index_type c = a.coarse[static_cast<long long>(e) * nc + t];
                b0[t] = c >= 0 ? __ldg(&x[c]) : V(0);
            }
        }
    int extent[3] = {1, 1, 1};
    for (int c = 0; c < a.dim; ++c) extent[c] = TRANSPOSED ? a.pf : a.pc;
    V* in = b0;
    V* out = b1;
    for (int dir = 0; dir < a.dim; ++dir) {
        __syncthreads();
        if (active) contract(in, out, extent, dir, TRANSPOSED, table, a.pf, a.pc, lane, lanes);
        else extent[dir] = TRANSPOSED ? a.pc : a.pf;
        V* done = out;
        out = in;
        in = done;
    }
    __syncthreads();
    if (!active) return;
    if constexpr (TRANSPOSED) {
        for (int m = lane; m < nc; m += lanes) {
            const index_type c = a.coarse[static_cast<long long>(e) * nc + m];
            if (c >= 0) atomicAdd(&y[c], alpha * in[m]);
        }
    } else {
        for (int l = lane; l < nf; l += lanes) {
            const index_type u = a.fine[static_cast<long long>(e) * nf + l];
            if (u >= 0) y[u] += alpha * in[l];
        }
    }
}

__global__ void transfer_unknowns_kernel(index_type cells, int per_cell, const index_type* __restrict__ unknowns,
                                         const int* __restrict__ of_lex, int n, const long long* __restrict__ owner,
                                         index_type* __restrict__ out)
{
    const long long t = thread_index();
    if (t >= static_cast<long long>(cells) * n) return;
    const long long e = t / n;
    const long long slot = e * per_cell + of_lex[t % n];
    const index_type u = unknowns[slot];
    out[t] = owner && owner[u] != slot ? ~u : u;
}

/// Launches the transfer: about 256 threads a block, a thread per fine node of each cell (at
/// most 1024 a cell, sharing the nodes beyond).
template <bool TRANSPOSED, typename V>
void launch_transfer(const Executor& exec, const PaTransferArgs<V>& a, V alpha, const V* x, V* y)
{
    if (a.cells == 0) return;
    const int nf = per_cell(a.dim, a.pf);
    const int lanes = std::min(nf, 1024);
    const int cells_per_block = std::max(1, 256 / lanes);
    const std::size_t shared =
        sizeof(V) * (static_cast<std::size_t>(a.pf) * a.pc + 2 * cells_per_block * cell_buffer(a.dim, a.pf));
    const unsigned blocks = static_cast<unsigned>((static_cast<long long>(a.cells) + cells_per_block - 1) / cells_per_block);
    transfer_kernel<TRANSPOSED, V><<<blocks, cells_per_block * lanes, shared, stream_of(exec)>>>(a, cells_per_block,
                                                                                               lanes, alpha, x, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

void pa_transfer_unknowns(const Executor& exec, index_type cells, int per_cell, const index_type* unknowns,
                          const int* of_lex, int n, const long long* owner, index_type* out)
{
    const long long total = static_cast<long long>(cells) * n;
    if (total == 0) return;
    transfer_unknowns_kernel<<<grid_for(total), block_size, 0, stream_of(exec)>>>(cells, per_cell, unknowns, of_lex, n,
                                                                                 owner, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void pa_prolongate(const Executor& exec, const PaTransferArgs<V>& a, V alpha, const V* x, V* y)
{
    launch_transfer<false>(exec, a, alpha, x, y);
}

template <typename V>
void pa_restrict(const Executor& exec, const PaTransferArgs<V>& a, V alpha, const V* x, V* y)
{
    launch_transfer<true>(exec, a, alpha, x, y);
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(pa_prolongate, pa_restrict)

}  // namespace gpufem::kernels::cuda
