#include "assembly/lma_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

/// Entry (i, j) of the cell at position p (either triangle when symmetric).
template <typename V>
__device__ V entry(const LmaArgs<V>& a, index_type p, int i, int j)
{
    const int k = !a.symmetric ? i * a.npe + j
                  : i <= j     ? lma_packed_index(a.npe, i, j)
                               : lma_packed_index(a.npe, j, i);
    return __ldg(a.matrices + static_cast<std::size_t>(k) * a.num_cells + p);
}

template <typename V>
__device__ index_type node(const LmaArgs<V>& a, index_type p, int i)
{
    return __ldg(a.connectivity + static_cast<std::size_t>(i) * a.num_cells + p);
}

/// x at node n, zero on Dirichlet nodes (symmetric elimination).
template <typename V>
__device__ V gathered(const LmaArgs<V>& a, const V* __restrict__ x, index_type n)
{
    return a.mask && a.mask[n] ? V(0) : __ldg(x + n);
}

template <typename V>
__device__ void scatter(const LmaArgs<V>& a, V* y, index_type n, V value, bool atomic)
{
    if (a.mask && a.mask[n]) return;
    if (atomic) atomicAdd(y + n, value);
    else y[n] += value;
}

template <typename V>
__global__ void interleave_kernel(index_type num_cells, int npe, bool symmetric,
                                  const index_type* __restrict__ order, const V* __restrict__ ke,
                                  V* __restrict__ out)
{
    // One thread per (entry k, position p), p fastest: the writes are coalesced.
    const int entries = symmetric ? npe * (npe + 1) / 2 : npe * npe;
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= static_cast<std::size_t>(entries) * num_cells) return;
    const index_type p = static_cast<index_type>(t % num_cells);
    int k = static_cast<int>(t / num_cells);
    int i = 0, j = k;
    if (symmetric) {
        while (j >= npe - i) {  // row i of the packed triangle holds npe - i entries
            j -= npe - i;
            ++i;
        }
        j += i;
    } else {
        i = k / npe;
        j = k % npe;
    }
    out[t] = ke[static_cast<std::size_t>(order[p]) * npe * npe + i * npe + j];
}

template <typename V>
__global__ void diagonal_kernel(LmaArgs<V> a, V* __restrict__ diag)
{
    const index_type p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.num_cells) return;
    for (int i = 0; i < a.npe; ++i) atomicAdd(diag + node(a, p, i), entry(a, p, i, i));
}

template <typename V>
__global__ void prepare_kernel(index_type num_nodes, V alpha, const V* __restrict__ x, V beta,
                               V* __restrict__ y, const std::uint8_t* __restrict__ mask,
                               const V* __restrict__ diag)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_nodes) return;
    V value = beta == V(0) ? V(0) : beta * y[i];
    if (mask && mask[i]) value += alpha * diag[i] * x[i];
    y[i] = value;
}

/// One thread per cell, npe <= MaxNpe: x_e and the result in registers (loops fully unrolled,
/// entries beyond npe skipped), each stored entry read once.
template <int MaxNpe, typename V>
__global__ void __launch_bounds__(block_size)
    apply_small_kernel(LmaArgs<V> a, index_type begin, index_type end, V alpha,
                       const V* __restrict__ x, V* __restrict__ y, bool atomic)
{
    const index_type p = begin + blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= end) return;
    const int npe = a.npe;
    index_type nodes[MaxNpe];
    V xe[MaxNpe], re[MaxNpe];
#pragma unroll
    for (int j = 0; j < MaxNpe; ++j) {
        if (j < npe) {
            nodes[j] = node(a, p, j);
            xe[j] = gathered(a, x, nodes[j]);
        }
        re[j] = 0;
    }
    const V* m = a.matrices + p;
    const std::size_t n = a.num_cells;
    if (a.symmetric) {
        int k = 0;
#pragma unroll
        for (int i = 0; i < MaxNpe; ++i) {
#pragma unroll
            for (int j = i; j < MaxNpe; ++j) {
                if (j < npe) {
                    const V v = __ldg(m + k * n);
                    ++k;
                    re[i] += v * xe[j];
                    if (i != j) re[j] += v * xe[i];
                }
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < MaxNpe; ++i) {
#pragma unroll
            for (int j = 0; j < MaxNpe; ++j)
                if (i < npe && j < npe) re[i] += __ldg(m + (i * npe + j) * n) * xe[j];
        }
    }
#pragma unroll
    for (int i = 0; i < MaxNpe; ++i)
        if (i < npe) scatter(a, y, nodes[i], alpha * re[i], atomic);
}

/// One thread per (cell, local row), any npe: npe times the parallelism of one thread per
/// cell. The threads of a warp take consecutive cells of one row, so the interleaved matrix
/// and connectivity reads stay coalesced; x_e is re-read per row (through L1/L2). The rows of
/// one cell go to distinct nodes, so the colour variant needs no atomics here either.
template <typename V>
__global__ void __launch_bounds__(block_size)
    apply_rows_kernel(LmaArgs<V> a, index_type begin, index_type end, V alpha,
                      const V* __restrict__ x, V* __restrict__ y, bool atomic)
{
    const long long count = end - begin;
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= count * a.npe) return;
    const int i = static_cast<int>(t / count);
    const index_type p = begin + static_cast<index_type>(t % count);
    V sum = 0;
    for (int j = 0; j < a.npe; ++j) sum += entry(a, p, i, j) * gathered(a, x, node(a, p, j));
    scatter(a, y, node(a, p, i), alpha * sum, atomic);
}

}  // namespace

template <typename V>
void lma_interleave(const Executor& exec, index_type num_cells, int npe, bool symmetric,
                    const index_type* order, const V* ke, V* out)
{
    const std::size_t total = static_cast<std::size_t>(lma_entries_per_cell(npe, symmetric)) * num_cells;
    if (total == 0) return;
    interleave_kernel<<<blocks_for(total), block_size, 0, stream_of(exec)>>>(num_cells, npe,
                                                                             symmetric, order, ke, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_diagonal(const Executor& exec, const LmaArgs<V>& a, index_type num_nodes, V* diag)
{
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(diag, 0, sizeof(V) * num_nodes, stream_of(exec)));
    if (a.num_cells == 0) return;
    diagonal_kernel<<<blocks_for(a.num_cells), block_size, 0, stream_of(exec)>>>(a, diag);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_prepare(const Executor& exec, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const std::uint8_t* mask, const V* diag)
{
    if (num_nodes == 0) return;
    prepare_kernel<<<blocks_for(num_nodes), block_size, 0, stream_of(exec)>>>(num_nodes, alpha, x,
                                                                              beta, y, mask, diag);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_apply_cells(const Executor& exec, const LmaArgs<V>& a, index_type begin,
                     index_type end, V alpha, const V* x, V* y, bool atomic)
{
    if (end <= begin) return;
    const unsigned blocks = blocks_for(end - begin);
    const cudaStream_t stream = stream_of(exec);
    if (a.npe <= 4)
        apply_small_kernel<4><<<blocks, block_size, 0, stream>>>(a, begin, end, alpha, x, y, atomic);
    else if (a.npe <= 8)
        apply_small_kernel<8><<<blocks, block_size, 0, stream>>>(a, begin, end, alpha, x, y, atomic);
    else if (a.npe <= 16)
        apply_small_kernel<16><<<blocks, block_size, 0, stream>>>(a, begin, end, alpha, x, y, atomic);
    else
        apply_rows_kernel<<<blocks_for(static_cast<std::size_t>(end - begin) * a.npe), block_size, 0,
                            stream>>>(a, begin, end, alpha, x, y, atomic);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template void lma_interleave(const Executor&, index_type, int, bool, const index_type*,   \
                                 const V*, V*);                                                \
    template void lma_diagonal(const Executor&, const LmaArgs<V>&, index_type, V*);            \
    template void lma_prepare(const Executor&, index_type, V, const V*, V, V*,                 \
                              const std::uint8_t*, const V*);                                  \
    template void lma_apply_cells(const Executor&, const LmaArgs<V>&, index_type, index_type, \
                                  V, const V*, V*, bool);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cuda
