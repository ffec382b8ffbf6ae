#pragma once
// CUDA element kernels that scale to any order (P2-P4, Q2-Q4: up to 125 x 125 entries per
// cell). Once per call, the reference gradients are rearranged component-major with padded
// rows, [q][c][j] (j < padded_nodes(npe), zeros past npe), followed by the values [q][i].
// Then per batch of cells:
//  1. geometry: one thread per (cell, quadrature point) writes w |det J| J^-1 kappa J^-T
//     (packed symmetric), w |det J| f and, with the lower-order terms, beta = w |det J| J^-1 b
//     and w |det J| c to a device scratch array (element_geometry.hpp);
//  2. rows: one thread per (cell, local row i) computes row i of K_e in chunks of
//     row_chunk columns, K_ij = sum_q sum_c h_c(q) dN_j,c(q) with h = G_q dN_i(q) (+ N_i(q)
//     beta_q, and N_i(q) (w |det J| c)_q N_j(q), with the lower-order terms), handing each chunk to
//     the sink (stored, or atomically added into CSR), then f_i = sum_q (w |det J| f)_q N_i(q).
// The table is staged in shared memory when it fits in shared_table_limit bytes; otherwise
// it is read from global memory (L1). Either way the loads of dN_j,c(q) are warp-uniform (a
// broadcast) and 16-byte vectors (2 doubles, 4 floats), so the inner loop issues one load per
// 2 (double) or 4 (float) FMAs.
#include "assembly/cuda/element_sinks.cuh"
#include "assembly/element_geometry.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {

/// Threads per block of the kernels.
inline constexpr int any_order_block = 256;
/// Columns of K_e each row thread accumulates in registers at once.
inline constexpr int row_chunk = 16;
/// Blocks per SM the row kernel is compiled for, which caps its registers: float 3 (85
/// registers; 72-80 used), double 2 (128; 122-128 used). ptxas fills the budget with loads in
/// flight; at 85 registers the double kernel spills.
template <typename V>
inline constexpr int row_min_blocks = sizeof(V) == 8 ? 2 : 3;
/// Largest reference table staged in shared memory: three blocks of the row kernel per SM
/// still fit in an H100/H200's 228 KB (above 48 KB the kernel opts in, where the device allows).
inline constexpr std::size_t shared_table_limit = 72 * 1024;
/// Quadrature points per batch: bounds the geometry scratch (7 values each in 3D, 10 with
/// convection).
inline constexpr std::size_t geometry_batch_points = std::size_t(1) << 21;

/// Row length of the component-major gradient table: npe rounded up to 4, so that every
/// chunk starts 16-byte aligned for both value types.
__host__ __device__ inline int padded_nodes(int npe) { return (npe + 3) / 4 * 4; }

/// Values of one 16-byte load.
template <typename V>
inline constexpr int vector_width = 16 / static_cast<int>(sizeof(V));

/// out[0..vector_width) = p[0..vector_width), p 16-byte aligned.
template <typename V>
__device__ inline void load_vector(const V* p, V* out)
{
    if constexpr (sizeof(V) == 8) {
        const double2 v = *reinterpret_cast<const double2*>(p);
        out[0] = v.x, out[1] = v.y;
    } else {
        const float4 v = *reinterpret_cast<const float4*>(p);
        out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    }
}

/// The reference table of the row kernel: gradients [q][c][j] with rows of `padded`, then
/// values [q][i].
template <int DIM, typename V>
__global__ void __launch_bounds__(any_order_block)
    row_table_kernel(ElementArgs<V> a, int padded, V* __restrict__ table)
{
    const int npe = a.nodes_per_cell, nq = a.num_points;
    const int nd = nq * DIM * padded, total = nd + nq * npe;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += gridDim.x * blockDim.x) {
        if (k >= nd) {
            table[k] = a.values[k - nd];
            continue;
        }
        const int q = k / (DIM * padded), c = (k / padded) % DIM, j = k % padded;
        table[k] = j < npe ? a.gradients[(q * npe + j) * DIM + c] : V(0);
    }
}

/// Step 1: geometric factors of points [0, (end - begin) * nq) of cells [begin, end) (of
/// those with wanted[e] set, wanted non-null).
template <int DIM, typename V>
__global__ void __launch_bounds__(any_order_block)
    any_order_geometry_kernel(ElementArgs<V> a, index_type begin, index_type end,
                              const std::uint8_t* __restrict__ wanted, V* __restrict__ geo)
{
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const index_type local = static_cast<index_type>(t / a.num_points);
    const int q = static_cast<int>(t - static_cast<long long>(local) * a.num_points);
    if (begin + local >= end || (wanted && !wanted[begin + local])) return;
    const int stride = geometry_stride<DIM>(a.has_lower_order);
    point_geometry<DIM>(a, begin + local, q, geo + t * stride);
}

/// acc[jj] = K_i,(jc+jj) for jj < JT of one cell (TAIL: the last chunk, npe - jc < JT
/// columns; the padding zeros make the extra accumulators 0). N: the values [q][i]
/// (read only with LOWER: the convection and reaction terms).
template <int DIM, int JT, bool TAIL, bool LOWER, typename V>
__device__ inline void accumulate_row_chunk(int npe, int padded, int nq, const V* __restrict__ geo,
                                            const V* dN, const V* N, int i, int jc, V (&acc)[JT])
{
    constexpr int stride = geometry_stride<DIM>(LOWER), width = vector_width<V>;
#pragma unroll
    for (int jj = 0; jj < JT; ++jj) acc[jj] = V(0);
    const int count = npe - jc;
    for (int q = 0; q < nq; ++q) {
        const V* dq = dN + q * DIM * padded;
        V own[DIM], h[DIM], n_i = 0;
#pragma unroll
        for (int c = 0; c < DIM; ++c) own[c] = dq[c * padded + i];
        if constexpr (LOWER) {
            n_i = N[q * npe + i];
            const V reaction = n_i * geo[q * stride + geometry_reaction_slot<DIM>];
#pragma unroll
            for (int jj = 0; jj < JT; ++jj)
                if (!TAIL || jj < count) acc[jj] += reaction * N[q * npe + jc + jj];
        }
        row_vector<DIM, LOWER>(geo + q * stride, own, n_i, h);
#pragma unroll
        for (int c = 0; c < DIM; ++c) {
            const V* row = dq + c * padded + jc;
#pragma unroll
            for (int jj = 0; jj < JT; jj += width) {
                if (TAIL && jj >= count) break;
                V v[width];
                load_vector(row + jj, v);
#pragma unroll
                for (int w = 0; w < width; ++w) acc[jj + w] += h[c] * v[w];
            }
        }
    }
}

/// Step 2: one thread per (cell, row) of cells [begin, end); geo holds their points' factors
/// (with beta and c when LOWER), table the reference table of row_table_kernel.
template <int DIM, bool SHARED, bool LOWER, typename V, typename Sink>
__global__ void __launch_bounds__(any_order_block, row_min_blocks<V>)
    any_order_rows_kernel(ElementArgs<V> a, index_type begin, index_type end,
                          const V* __restrict__ geo, const V* __restrict__ table, Sink sink)
{
    constexpr int stride = geometry_stride<DIM>(LOWER);
    const int npe = a.nodes_per_cell, nq = a.num_points, padded = padded_nodes(npe);
    const V* dN = table;
    if constexpr (SHARED) {
        extern __shared__ __align__(16) unsigned char shared_bytes[];
        V* staged = reinterpret_cast<V*>(shared_bytes);
        const int total = nq * DIM * padded + nq * npe;
        for (int k = threadIdx.x; k < total; k += blockDim.x) staged[k] = table[k];
        __syncthreads();
        dN = staged;
    }
    const V* N = dN + nq * DIM * padded;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const index_type local = static_cast<index_type>(t / npe);
    const int i = static_cast<int>(t - static_cast<long long>(local) * npe);
    const index_type e = begin + local;
    if (e >= end) return;
    if constexpr (requires { sink.needs_row(e, i); })
        if (!sink.needs_row(e, i)) return;  // a residual wanted at some rows only
    const V* g = geo + static_cast<long long>(local) * nq * stride;

    V acc[row_chunk];
    int jc = 0;
    for (; jc + row_chunk <= npe; jc += row_chunk) {
        accumulate_row_chunk<DIM, row_chunk, false, LOWER>(npe, padded, nq, g, dN, N, i, jc, acc);
        sink.template add_row<row_chunk>(e, i, jc, row_chunk, acc);
    }
    if (jc < npe) {
        accumulate_row_chunk<DIM, row_chunk, true, LOWER>(npe, padded, nq, g, dN, N, i, jc, acc);
        sink.template add_row<row_chunk>(e, i, jc, npe - jc, acc);
    }
    V load = 0;
    for (int q = 0; q < nq; ++q) load += g[q * stride + geometry_load_slot<DIM>] * N[q * npe + i];
    sink.add_load(e, i, load);
}

/// Shared memory one block may use for the table: shared_table_limit, or less where the
/// device's opt-in maximum is smaller.
inline std::size_t shared_table_bytes(const Executor& exec)
{
    int optin = 0;
    GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                             exec.device_id()));
    return std::min<std::size_t>(shared_table_limit, static_cast<std::size_t>(optin));
}

/// The row kernel for the table in shared memory or not, with the lower-order terms or not.
template <int DIM, typename V, typename Sink>
auto select_rows_kernel(bool shared, bool lower_order)
{
    if (shared)
        return lower_order ? any_order_rows_kernel<DIM, true, true, V, Sink>
                           : any_order_rows_kernel<DIM, true, false, V, Sink>;
    return lower_order ? any_order_rows_kernel<DIM, false, true, V, Sink>
                       : any_order_rows_kernel<DIM, false, false, V, Sink>;
}

/// The cells a sink wants (one byte per cell: a residual at some rows only), or null for all.
template <typename Sink>
const std::uint8_t* cells_wanted_of(const Sink& sink)
{
    if constexpr (requires { sink.cells_wanted; }) return sink.cells_wanted;
    else return nullptr;
}

/// Builds the table, then runs both steps over all cells in batches of
/// geometry_batch_points points, on exec's stream, with the geometry in exec's scratch buffer.
template <typename V, typename Sink>
void launch_any_order(const Executor& exec, const ElementData<V>& data, const Sink& sink)
{
    const ElementArgs<V> a = data.args();
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const auto blocks = [](std::size_t n) {
        return static_cast<unsigned>((n + any_order_block - 1) / any_order_block);
    };
    const std::uint8_t* wanted = cells_wanted_of(sink);
    dispatch_dimension(a.dim, [&]<int DIM>() {
        const int stride = geometry_stride<DIM>(a.has_lower_order);
        const std::size_t nq = a.num_points, npe = a.nodes_per_cell;
        const int padded = padded_nodes(a.nodes_per_cell);
        const std::size_t table_size = nq * DIM * padded + nq * npe;
        Array<V> table(data.cells.executor(), table_size);
        row_table_kernel<DIM, V>
            <<<blocks(table_size), any_order_block, 0, stream>>>(a, padded, table.data());
        GPUFEM_CUDA_CHECK_LAUNCH();

        const index_type batch = static_cast<index_type>(std::min<std::size_t>(
            a.num_cells, std::max<std::size_t>(1, geometry_batch_points / nq)));
        V* geo = static_cast<V*>(
            exec.scratch(static_cast<std::size_t>(batch) * nq * stride * sizeof(V)));
        const std::size_t table_bytes = table_size * sizeof(V);
        const bool shared = table_bytes <= shared_table_bytes(exec);
        const auto rows_kernel = select_rows_kernel<DIM, V, Sink>(shared, a.has_lower_order);
        const std::size_t rows_shared_bytes = shared ? table_bytes : 0;
        if (rows_shared_bytes > 48 * 1024)
            GPUFEM_CUDA_CHECK(cudaFuncSetAttribute(rows_kernel,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(rows_shared_bytes)));
        for (index_type begin = 0; begin < a.num_cells; begin += batch) {
            const index_type end = std::min(a.num_cells, begin + batch);
            const std::size_t points = static_cast<std::size_t>(end - begin) * nq;
            const std::size_t rows = static_cast<std::size_t>(end - begin) * npe;
            any_order_geometry_kernel<DIM, V>
                <<<blocks(points), any_order_block, 0, stream>>>(a, begin, end, wanted, geo);
            GPUFEM_CUDA_CHECK_LAUNCH();
            rows_kernel<<<blocks(rows), any_order_block, rows_shared_bytes, stream>>>(
                a, begin, end, geo, table.data(), sink);
            GPUFEM_CUDA_CHECK_LAUNCH();
        }
        exec.synchronize();  // the table is freed on return
    });
}

}  // namespace gpufem::kernels::cuda
