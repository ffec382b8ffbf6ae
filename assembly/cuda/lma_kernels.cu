#include <stdexcept>
#include <string>

#include "assembly/cuda/lma_apply.cuh"
#include "assembly/lma_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

unsigned blocks_for(std::size_t n, int block = block_size)
{
    return static_cast<unsigned>((n + block - 1) / block);
}

/// Entry (i, j) of the cell at position p (either triangle when symmetric).
template <typename V>
__device__ V entry(const LmaArgs<V>& a, index_type p, int i, int j)
{
    return lma::any_entry(a, p, i, j);
}

/// The node of a stored value, Dirichlet (~node) or not.
__device__ index_type decoded(index_type stored) { return stored < 0 ? ~stored : stored; }

template <typename V>
__global__ void interleave_kernel(index_type stride, int npe, bool symmetric,
                                  const index_type* __restrict__ order, index_type cells,
                                  const V* __restrict__ ke, V* __restrict__ out)
{
    // One thread per (entry k, slot p), p fastest: the writes are coalesced.
    const int entries = symmetric ? npe * (npe + 1) / 2 : npe * npe;
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= static_cast<std::size_t>(entries) * stride) return;
    const index_type p = static_cast<index_type>(t % stride);
    int k = static_cast<int>(t / stride);
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
    const index_type e = lma_slot_cell(order, cells, p);
    out[t] = e < 0 ? V(0) : ke[static_cast<std::size_t>(e) * npe * npe + i * npe + j];
}

template <typename V>
__global__ void diagonal_kernel(LmaArgs<V> a, index_type begin, index_type end, V* __restrict__ diag)
{
    const index_type p = begin + static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= end) return;
    for (int i = 0; i < a.npe; ++i)
        atomicAdd(diag + decoded(lma::load_node(a, i, p)), entry(a, p, i, i));
}

template <typename V>
__global__ void scale_kernel(index_type num_nodes, V beta, V* __restrict__ y)
{
    const index_type i = static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < num_nodes) y[i] *= beta;
}

template <typename V>
__global__ void dirichlet_diagonal_kernel(index_type count, const index_type* __restrict__ nodes,
                                          V alpha, const V* __restrict__ x,
                                          const V* __restrict__ diag, V* __restrict__ y)
{
    const index_type k = static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const index_type d = nodes[k];
    y[d] += alpha * diag[d] * x[d];
}

template <typename V>
__global__ void lift_kernel(LmaArgs<V> a, index_type begin, index_type end,
                            const V* __restrict__ g, V* __restrict__ rhs)
{
    // One thread per (cell, row), a warp on consecutive cells of one row; only the Dirichlet
    // columns.
    const long long count = end - begin;
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= count * a.npe) return;
    const int i = static_cast<int>(t / count);
    const index_type p = begin + static_cast<index_type>(t % count);
    const index_type n = lma::load_node(a, i, p);
    if (n < 0) return;
    V sum = 0;
    for (int j = 0; j < a.npe; ++j) {
        const index_type m = lma::load_node(a, j, p);
        if (m < 0) sum += entry(a, p, i, j) * g[~m];
    }
    atomicAdd(rhs + n, -sum);
}

template <typename V>
__global__ void dirichlet_rows_kernel(index_type num_nodes, const std::uint8_t* __restrict__ mask,
                                      const V* __restrict__ diag, const V* __restrict__ g,
                                      V* __restrict__ rhs)
{
    const index_type i = static_cast<index_type>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < num_nodes && mask[i]) rhs[i] = diag[i] * g[i];
}

template <typename V>
__global__ void scatter_loads_kernel(std::size_t count, const index_type* __restrict__ cells,
                                     const V* __restrict__ fe, V* __restrict__ rhs)
{
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) atomicAdd(rhs + cells[k], fe[k]);
}

/// Lets kernel use more than the default 48 KB of dynamic shared memory when it needs to;
/// throws when the device cannot give it. Called when the operator is built (not inside an
/// apply, which may be captured in a CUDA graph).
template <typename Kernel>
void allow_shared(Kernel kernel, std::size_t bytes)
{
    if (bytes <= 48 * 1024) return;
    int device = 0, optin = 0;
    GPUFEM_CUDA_CHECK(cudaGetDevice(&device));
    GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (bytes > static_cast<std::size_t>(optin))
        throw std::invalid_argument("LMA apply: " + std::to_string(bytes) +
                                    " bytes of shared memory per block needed, the device has " +
                                    std::to_string(optin));
    GPUFEM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
}

/// Signature shared by the apply kernels (twin has an extra `rounds` argument).
template <typename V>
using ApplyKernel = void (*)(LmaArgs<V>, index_type, index_type, V, const V*, V*, bool);
template <typename V>
using RoundsKernel = void (*)(LmaArgs<V>, index_type, index_type, int, V, const V*, V*, bool);

/// A kernel with its launch shape: threads per block, cells per block, dynamic shared bytes.
template <typename Kernel>
struct Launch {
    Kernel kernel;
    int threads;
    int cells_per_block;
    std::size_t shared;
    int rounds = 0;  ///< twin: rounds of its schedule
};

template <typename V>
Launch<ApplyKernel<V>> cell_launch(int npe, bool symmetric)
{
    const std::size_t per_thread = npe * (sizeof(V) * (symmetric ? 2 : 1) + sizeof(index_type));
    int threads = lma::cell_block;
    while (threads > 32 && threads * per_thread > 48 * 1024) threads /= 2;
    return {symmetric ? lma::apply_cell_kernel<V, true> : lma::apply_cell_kernel<V, false>, threads,
            threads, threads * per_thread};
}

/// Cells per tile for a launch over `cells` cells: 32 while that gives at least 4 blocks per
/// multiprocessor, else 16 or 8 (more, smaller blocks for a colour of few cells); fits(t)
/// says whether a block of t cells can be launched (8 is the last resort).
template <typename Fits>
int tile_cells_for(index_type cells, int multiprocessors, Fits fits)
{
    for (int t : {32, 16})
        if (fits(t) && cells >= static_cast<index_type>(t) * 4 * multiprocessors) return t;
    return 8;
}

template <int T, typename V>
Launch<ApplyKernel<V>> tile_launch_cells(int npe, bool symmetric)
{
    // As few threads as balance the rows: ceil(npe / groups) rows per group, at most 256
    // threads.
    const int max_groups = 256 / T;
    const int rows_per_group = (npe + max_groups - 1) / max_groups;
    const int groups = (npe + rows_per_group - 1) / rows_per_group;
    return {symmetric ? lma::apply_tile_kernel<T, V, true> : lma::apply_tile_kernel<T, V, false>,
            (groups * T + 31) / 32 * 32, T,
            static_cast<std::size_t>(npe) * T * (sizeof(V) + sizeof(index_type))};
}

template <typename V>
Launch<ApplyKernel<V>> tile_launch(int npe, bool symmetric, int tile_cells)
{
    switch (tile_cells) {
    case 8: return tile_launch_cells<8, V>(npe, symmetric);
    case 16: return tile_launch_cells<16, V>(npe, symmetric);
    default: return tile_launch_cells<32, V>(npe, symmetric);
    }
}

constexpr int twin_rows = 4;  ///< rows per thread group of the twin kernel

/// Whether a twin block of T cells fits in 1024 threads for this npe.
bool twin_fits(int npe, int t) { return (npe + twin_rows - 1) / twin_rows * t <= 1024; }

template <int T, typename V>
Launch<RoundsKernel<V>> twin_launch_tile(int npe, bool symmetric)
{
    constexpr int S = twin_rows;
    const int groups = (npe + S - 1) / S;
    const int threads = (groups * T + 31) / 32 * 32;
    if (threads > 1024)
        throw std::invalid_argument("LMA twin kernel: npe " + std::to_string(npe) + " needs " +
                                    std::to_string(threads) + " threads per block; use the tile kernel");
    return {symmetric ? lma::apply_twin_kernel<S, T, V, true> : lma::apply_twin_kernel<S, T, V, false>,
            threads, T, static_cast<std::size_t>(groups) * S * T * sizeof(V),
            groups % 2 == 0 ? groups + 1 : groups};
}

template <typename V>
Launch<RoundsKernel<V>> twin_launch(int npe, bool symmetric, int tile_cells)
{
    switch (tile_cells) {
    case 8: return twin_launch_tile<8, V>(npe, symmetric);
    case 16: return twin_launch_tile<16, V>(npe, symmetric);
    default: return twin_launch_tile<32, V>(npe, symmetric);
    }
}

}  // namespace

template <typename V>
void lma_interleave(const Executor& exec, index_type stride, int npe, bool symmetric,
                    const index_type* order, index_type cells, const V* ke, V* out)
{
    const std::size_t total = static_cast<std::size_t>(lma_entries_per_cell(npe, symmetric)) * stride;
    if (total == 0) return;
    interleave_kernel<<<blocks_for(total), block_size, 0, stream_of(exec)>>>(stride, npe, symmetric,
                                                                             order, cells, ke, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_diagonal(const Executor& exec, const LmaArgs<V>& a, index_type begin, index_type end, V* diag)
{
    if (end <= begin) return;
    diagonal_kernel<<<blocks_for(end - begin), block_size, 0, stream_of(exec)>>>(a, begin, end, diag);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_prepare(const Executor& exec, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const index_type* dirichlet, index_type dirichlet_count, const V* diag)
{
    if (num_nodes == 0) return;
    const cudaStream_t stream = stream_of(exec);
    if (beta == V(0)) {
        GPUFEM_CUDA_CHECK(cudaMemsetAsync(y, 0, sizeof(V) * num_nodes, stream));
    } else {
        scale_kernel<<<blocks_for(num_nodes), block_size, 0, stream>>>(num_nodes, beta, y);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    if (dirichlet_count == 0) return;
    dirichlet_diagonal_kernel<<<blocks_for(dirichlet_count), block_size, 0, stream>>>(
        dirichlet_count, dirichlet, alpha, x, diag, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_configure(const Executor&, const LmaArgs<V>& a, LmaKernel kernel)
{
    const int npe = a.npe;
    const bool symmetric = a.symmetric;
    if (kernel == LmaKernel::cell) {
        const auto l = cell_launch<V>(npe, symmetric);
        allow_shared(l.kernel, l.shared);
    } else if (kernel == LmaKernel::tile) {
        for (int t : {8, 16, 32}) {
            const auto l = tile_launch<V>(npe, symmetric, t);
            allow_shared(l.kernel, l.shared);
        }
    } else if (kernel == LmaKernel::twin) {
        for (int t : {8, 16, 32}) {
            if (t > 8 && !twin_fits(npe, t)) continue;  // never chosen for this npe
            const auto l = twin_launch<V>(npe, symmetric, t);
            allow_shared(l.kernel, l.shared);
        }
    }
}

template <typename V>
void lma_apply_cells(const Executor& exec, const LmaArgs<V>& a, index_type begin,
                     index_type end, V alpha, const V* x, V* y, bool atomic, LmaKernel kernel)
{
    if (end <= begin) return;
    const cudaStream_t stream = stream_of(exec);
    const bool sym = a.symmetric;
    switch (kernel) {
    case LmaKernel::automatic:
        throw std::invalid_argument("lma_apply_cells: the kernel must be resolved first");
    case LmaKernel::cell:
    case LmaKernel::tile: {
        const int units = exec.compute_units();
        const auto l = kernel == LmaKernel::cell
                           ? cell_launch<V>(a.npe, sym)
                           : tile_launch<V>(a.npe, sym,
                                            tile_cells_for(end - begin, units, [](int) { return true; }));
        l.kernel<<<blocks_for(end - begin, l.cells_per_block), l.threads, l.shared, stream>>>(
            a, begin, end, alpha, x, y, atomic);
        break;
    }
    case LmaKernel::twin: {
        const int units = exec.compute_units();
        auto fits = [&](int t) { return twin_fits(a.npe, t); };
        const auto l = twin_launch<V>(a.npe, sym, tile_cells_for(end - begin, units, fits));
        l.kernel<<<blocks_for(end - begin, l.cells_per_block), l.threads, l.shared, stream>>>(
            a, begin, end, l.rounds, alpha, x, y, atomic);
        break;
    }
    }
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_dirichlet_lift(const Executor& exec, const LmaArgs<V>& a, index_type begin,
                        index_type end, const V* g, V* rhs)
{
    if (end <= begin) return;
    lift_kernel<<<blocks_for(static_cast<std::size_t>(end - begin) * a.npe), block_size, 0,
                  stream_of(exec)>>>(a, begin, end, g, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_dirichlet_rows(const Executor& exec, index_type num_nodes, const std::uint8_t* mask,
                        const V* diag, const V* g, V* rhs)
{
    if (num_nodes == 0) return;
    dirichlet_rows_kernel<<<blocks_for(num_nodes), block_size, 0, stream_of(exec)>>>(num_nodes, mask,
                                                                                     diag, g, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void lma_scatter_loads(const Executor& exec, index_type num_cells, int npe, const index_type* cells,
                       const V* fe, V* rhs)
{
    const std::size_t count = static_cast<std::size_t>(num_cells) * npe;
    if (count == 0) return;
    scatter_loads_kernel<<<blocks_for(count), block_size, 0, stream_of(exec)>>>(count, cells, fe, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    lma_interleave, lma_diagonal, lma_prepare, lma_configure, lma_apply_cells, lma_dirichlet_lift,
    lma_dirichlet_rows, lma_scatter_loads)

namespace {

/// One thread per (local node i, slot p), p fastest (coalesced writes).
__global__ void interleave_connectivity_kernel(index_type stride, int npe,
                                               const index_type* __restrict__ order,
                                               index_type num_cells,
                                               const index_type* __restrict__ cells,
                                               const std::uint8_t* __restrict__ mask,
                                               index_type* __restrict__ out)
{
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= static_cast<std::size_t>(npe) * stride) return;
    const index_type p = static_cast<index_type>(t % stride);
    const int i = static_cast<int>(t / stride);
    const index_type e = lma_slot_cell(order, num_cells, p);
    index_type node = -1;
    if (e >= 0) {
        node = cells[static_cast<std::size_t>(e) * npe + i];
        if (mask && mask[node]) node = ~node;
    }
    out[t] = node;
}

}  // namespace

void lma_interleave_connectivity(const Executor& exec, index_type stride, int npe, const index_type* order,
                                 index_type num_cells, const index_type* cells,
                                 const std::uint8_t* mask, index_type* out)
{
    const std::size_t total = static_cast<std::size_t>(npe) * stride;
    if (total == 0) return;
    interleave_connectivity_kernel<<<blocks_for(total), block_size, 0, stream_of(exec)>>>(
        stride, npe, order, num_cells, cells, mask, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace gpufem::kernels::cuda
