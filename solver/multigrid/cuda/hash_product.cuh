#pragma once
// gpufem's own sparse product C = A B on CUDA (AMG's Galerkin products A P and R (A P)), one
// warp per row of C with the row's columns in a hash table in shared memory:
//   1. count: each warp inserts the columns of the rows of B that its row of A names (each
//      lane its own entries of A) into a table sized from the row's products, and counts the
//      distinct ones (stopping past row_limit: that product goes to cuSPARSE instead);
//   2. offsets: an exclusive scan of the counts;
//   3. fill: the columns again (in one of three tiers of tables: rows of up to 64 / 256 / 512
//      columns, so short rows keep the shared memory small), compacted and ranked (each column's position = how many of the
//      row's columns are smaller: sorted rows without a sort), then the values summed in A's
//      order (a_ik b_kj for k along A's row; the lanes of one step hold distinct columns of one
//      row of B, so there are no atomics and the sums are the same every run), written in place.
// Only the CUDA translation unit of the AMG kernels includes this file.
#include <cstdint>

#include <cub/device/device_scan.cuh>

#include "linalg/csr.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"

namespace gpufem::kernels::cuda::hash_product {

/// Hash slots per warp (a power of two).
inline constexpr int table_slots = 1024;
/// The most distinct columns a row of C may have on this path (half the table: short probes).
inline constexpr int row_limit = 512;
inline constexpr int count_warps = 8;  ///< warps per block of the count kernel

/// log2 of the table a row of at most `entries` distinct columns uses: at least twice as many
/// slots (short probes), at least 32, at most 2^max_bits.
__device__ inline int table_bits(long long entries, int max_bits = 10)
{
    int bits = 5;
    while (bits < max_bits && (1LL << bits) < 2 * entries) ++bits;
    return bits;
}

/// The first slot of column c in a table of 2^bits slots (Fibonacci hashing: the top bits of
/// c times 2^32 / phi).
__device__ inline unsigned first_slot(index_type c, int bits)
{
    return (static_cast<unsigned>(c) * 2654435761u) >> (32 - bits);
}

/// Inserts column c into the table of 2^bits slots (linear probing); true when it was not
/// there. The table never fills (see insert_row).
__device__ inline bool insert(index_type* keys, int bits, index_type c)
{
    const unsigned mask = (1u << bits) - 1u;
    for (unsigned s = first_slot(c, bits);; s = (s + 1) & mask) {
        const index_type before = atomicCAS(&keys[s], index_type(-1), c);
        if (before == -1) return true;
        if (before == c) return false;
    }
}

/// The slot holding column c (present).
__device__ inline unsigned find(const index_type* keys, int bits, index_type c)
{
    const unsigned mask = (1u << bits) - 1u;
    unsigned s = first_slot(c, bits);
    while (keys[s] != c) s = (s + 1) & mask;
    return s;
}

/// Inserts the columns of row `row` of A B into the warp's table of 2^bits slots, each lane
/// walking the row of B of its own entries of A's row; returns how many distinct columns it
/// found (warp-uniform), stopping once past `limit` (at most 32 more: the caller's table has
/// room for limit + 32 when it could be reached).
__device__ inline int insert_row(index_type row, const index_type* __restrict__ a_ptr,
                                 const index_type* __restrict__ a_col,
                                 const index_type* __restrict__ b_ptr,
                                 const index_type* __restrict__ b_col, index_type* keys, int bits,
                                 int limit)
{
    const int lane = threadIdx.x & 31;
    int distinct = 0;
    for (index_type p0 = a_ptr[row]; p0 < a_ptr[row + 1] && distinct <= limit; p0 += 32) {
        const index_type p = p0 + lane;
        index_type q = 0, end = 0;
        if (p < a_ptr[row + 1]) {
            const index_type k = a_col[p];
            q = b_ptr[k];
            end = b_ptr[k + 1];
        }
        while (__any_sync(0xffffffffu, q < end) && distinct <= limit) {
            const bool fresh = q < end && insert(keys, bits, b_col[q]);
            ++q;
            distinct += __popc(__ballot_sync(0xffffffffu, fresh));
        }
    }
    return distinct;
}

/// counts[row] = the distinct columns of row `row` of A B; *longest = the most of a row (past
/// row_limit: that product goes to cuSPARSE); *total += the counts (64 bits: a product past
/// 2^31 entries is seen).
__global__ void __launch_bounds__(count_warps * 32)
    count_kernel(index_type rows, const index_type* __restrict__ a_ptr,
                 const index_type* __restrict__ a_col, const index_type* __restrict__ b_ptr,
                 const index_type* __restrict__ b_col, index_type* __restrict__ counts,
                 int* __restrict__ longest, unsigned long long* __restrict__ total)
{
    __shared__ index_type tables[count_warps][table_slots];
    __shared__ unsigned long long block_total;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    const index_type row = static_cast<index_type>(blockIdx.x) * count_warps + warp;
    if (row < rows) {
        // The products a_ik b_kj bound the distinct columns: the table's size.
        long long products = 0;
        for (index_type p = a_ptr[row] + lane; p < a_ptr[row + 1]; p += 32)
            products += b_ptr[a_col[p] + 1] - b_ptr[a_col[p]];
        for (int offset = 16; offset > 0; offset >>= 1) products += __shfl_xor_sync(0xffffffffu, products, offset);
        // Past the limit the table is whole: row_limit + 32 < table_slots.
        const int bits = table_bits(products > row_limit ? table_slots : products);
        index_type* keys = tables[warp];
        for (int s = lane; s < (1 << bits); s += 32) keys[s] = -1;
        __syncwarp();
        const int distinct = insert_row(row, a_ptr, a_col, b_ptr, b_col, keys, bits, row_limit);
        if (lane == 0) {
            counts[row] = distinct;
            atomicMax(longest, distinct);
            atomicAdd(&block_total, static_cast<unsigned long long>(distinct));
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(total, block_total);
}

/// Row `row` of C = A B into c_col / c_val from c_ptr[row] on (columns increasing), for the
/// rows of `shortest` to Slots / 2 columns: each tier's tables fit its rows, so short rows
/// keep the shared memory small and the multiprocessors full.
template <typename V, int Slots, int Warps>
__global__ void __launch_bounds__(Warps * 32)
    fill_kernel(index_type rows, int shortest, const index_type* __restrict__ a_ptr,
                const index_type* __restrict__ a_col, const V* __restrict__ a_val,
                const index_type* __restrict__ b_ptr, const index_type* __restrict__ b_col,
                const V* __restrict__ b_val, const index_type* __restrict__ c_ptr,
                index_type* __restrict__ c_col, V* __restrict__ c_val)
{
    // Per warp: the sums, the keys, and the occupied slots in table order.
    __shared__ V sums_of[Warps][Slots];
    __shared__ index_type keys_of[Warps][Slots];
    __shared__ index_type occupied_of[Warps][Slots / 2];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const index_type row = static_cast<index_type>(blockIdx.x) * Warps + warp;
    if (row >= rows) return;
    const index_type base = c_ptr[row];
    const int m = c_ptr[row + 1] - base;  // known: the table's size
    if (m < shortest || m > Slots / 2) return;  // another tier's row
    V* sums = sums_of[warp];
    index_type* keys = keys_of[warp];
    index_type* occupied = occupied_of[warp];
    int max_bits = 5;
    while ((1 << max_bits) < Slots) ++max_bits;
    const int bits = table_bits(m, max_bits);
    const int slots = 1 << bits;
    for (int s = lane; s < slots; s += 32) {
        keys[s] = -1;
        sums[s] = V(0);
    }
    __syncwarp();
    insert_row(row, a_ptr, a_col, b_ptr, b_col, keys, bits, row_limit);
    __syncwarp();
    // The occupied slots, compacted in slot order.
    int found = 0;
    for (int s0 = 0; s0 < slots; s0 += 32) {
        const bool used = keys[s0 + lane] != -1;
        const unsigned mask = __ballot_sync(0xffffffffu, used);
        if (used) occupied[found + __popc(mask & ((1u << lane) - 1u))] = s0 + lane;
        found += __popc(mask);
    }
    // The sums in A's order: one step per entry of A's row, its row of B across the lanes
    // (distinct columns: no two lanes add to one slot in a step).
    for (index_type p = a_ptr[row]; p < a_ptr[row + 1]; ++p) {
        const index_type k = a_col[p];
        const V a = a_val[p];
        for (index_type q = b_ptr[k] + lane; q < b_ptr[k + 1]; q += 32)
            sums[find(keys, bits, b_col[q])] += a * b_val[q];
        __syncwarp();
    }
    // Each column at its rank among the row's columns.
    for (int i = lane; i < m; i += 32) {
        const index_type c = keys[occupied[i]];
        int rank = 0;
        for (int j = 0; j < m; ++j) rank += keys[occupied[j]] < c;
        c_col[base + rank] = c;
        c_val[base + rank] = sums[occupied[i]];
    }
}

/// Launches the fill of the rows of C with `shortest` to Slots / 2 columns.
template <typename V, int Slots, int Warps>
void launch_fill(cudaStream_t stream, int shortest, const Csr<V>& a, const Csr<V>& b, Csr<V>& c)
{
    const unsigned blocks = static_cast<unsigned>((static_cast<std::int64_t>(a.rows) + Warps - 1) / Warps);
    fill_kernel<V, Slots, Warps><<<blocks, Warps * 32, 0, stream>>>(
        a.rows, shortest, a.row_ptr.data(), a.col_idx.data(), a.values.data(), b.row_ptr.data(),
        b.col_idx.data(), b.values.data(), c.row_ptr.data(), c.col_idx.data(), c.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
}

/// C = A B by the hash product into c (its row offsets allocated, rows + 1); false (c's
/// columns and values left empty) when a row has more than row_limit distinct columns.
/// Throws std::length_error past 2^31 - 1 entries. Synchronises once (the size).
template <typename V>
bool multiply(const Executor& exec, const Csr<V>& a, const Csr<V>& b, Csr<V>& c)
{
    using gpufem::cuda::DeviceBuffer;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    const ExecPtr& ex = a.executor();
    const index_type rows = a.rows;
    index_type* ptr = c.row_ptr.data();
    struct Flags {
        unsigned long long total;
        int longest;
    };
    DeviceBuffer flags(exec, sizeof(Flags));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(flags.as<void>(), 0, sizeof(Flags), stream));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(ptr + rows, 0, sizeof(index_type), stream));
    if (rows > 0) {
        const unsigned blocks = static_cast<unsigned>((static_cast<std::int64_t>(rows) + count_warps - 1) / count_warps);
        count_kernel<<<blocks, count_warps * 32, 0, stream>>>(
            rows, a.row_ptr.data(), a.col_idx.data(), b.row_ptr.data(), b.col_idx.data(), ptr,
            &flags.as<Flags>()->longest, &flags.as<Flags>()->total);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    Flags host{};
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, flags.as<void>(), sizeof(Flags), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host.longest > row_limit) return false;
    if (host.total > 2147483647ULL)
        throw std::length_error("AMG: a Galerkin product has more than 2^31 - 1 non-zeros");
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, ptr, ptr, rows + 1, stream));
    {
        DeviceBuffer temp(exec, temp_bytes);
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), temp_bytes, ptr, ptr, rows + 1, stream));
    }
    c.col_idx = Array<index_type>(ex, static_cast<std::size_t>(host.total));
    c.values = Array<V>(ex, static_cast<std::size_t>(host.total));
    // Three tiers of tables (rows of up to 64, 256, 512 columns), each launched when it has rows.
    if (rows > 0) launch_fill<V, 128, 8>(stream, 0, a, b, c);
    if (host.longest > 64) launch_fill<V, 512, 4>(stream, 65, a, b, c);
    if (host.longest > 256) launch_fill<V, 1024, 2>(stream, 257, a, b, c);
    return true;
}

}  // namespace gpufem::kernels::cuda::hash_product
