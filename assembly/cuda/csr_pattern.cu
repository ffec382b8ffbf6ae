#include <cstdint>
#include <limits>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "assembly/csr_pattern.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

unsigned grid_for(std::size_t n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

/// counts[v + 1] = number of cells around node v (counts zeroed, n + 1 entries); entries -1
/// (a mixed mesh's rows end with them) belong to no node.
__global__ void count_node_cells_kernel(std::size_t entries, const index_type* __restrict__ cells,
                                        unsigned long long* __restrict__ counts)
{
    const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (k < entries && cells[k] >= 0) atomicAdd(&counts[cells[k] + 1], 1ULL);
}

/// The cells around each node, from the offsets (inclusive sums of the counts): cursor starts
/// as a copy of the offsets; a node's cells end up in no particular order.
__global__ void fill_node_cells_kernel(std::size_t entries, int npe,
                                       const index_type* __restrict__ cells,
                                       unsigned long long* __restrict__ cursor,
                                       index_type* __restrict__ node_cells)
{
    const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (k < entries && cells[k] >= 0) node_cells[atomicAdd(&cursor[cells[k]], 1ULL)] = static_cast<index_type>(k / npe);
}

/// The candidates of a row are the nodes of the cells around it, cell by cell; candidate p
/// (cell a = p / npe of the row's list, local node p % npe) counts once: when it is a node
/// (not a mixed mesh's padding, -1) and no earlier cell of the list, and no earlier node of its
/// own cell, holds the same node. One warp per row.
struct RowCandidates {
    const index_type* cells;
    const index_type* row_cells;  ///< the cells around the row's node
    long long count;              ///< row_cells entries
    int npe;

    __device__ index_type at(long long p) const
    {
        return cells[static_cast<std::size_t>(row_cells[p / npe]) * npe + p % npe];
    }
    __device__ bool first(long long p, index_type value) const
    {
        if (value < 0) return false;
        for (long long a = 0; a < p / npe; ++a) {
            const index_type* nodes = cells + static_cast<std::size_t>(row_cells[a]) * npe;
            for (int j = 0; j < npe; ++j)
                if (nodes[j] == value) return false;
        }
        // Nor earlier in its own cell.
        const index_type* own = cells + static_cast<std::size_t>(row_cells[p / npe]) * npe;
        for (int j = 0; j < p % npe; ++j)
            if (own[j] == value) return false;
        return true;
    }
};

/// Walks the candidates of the warp's row 32 at a time; calls visit(value, slot) on the lane of
/// every candidate p for which is_new(p, value) holds, slot = the number of those before it.
/// Returns their count, or -1 once more than `limit` were found before a batch.
template <typename IsNew, typename Visit>
__device__ long long for_each_new(const RowCandidates& row, IsNew&& is_new, Visit&& visit,
                                  long long limit = std::numeric_limits<long long>::max())
{
    const int lane = threadIdx.x % 32;
    const long long total = row.count * row.npe;
    long long found = 0;
    for (long long base = 0; base < total; base += 32) {
        if (found > limit) return -1;  // warp-uniform: found comes from the ballots
        const long long p = base + lane;
        index_type value = 0;
        bool fresh = false;
        if (p < total) {
            value = row.at(p);
            fresh = is_new(p, value);
        }
        const unsigned mask = __ballot_sync(0xffffffffu, fresh);
        if (fresh) visit(value, found + __popc(mask & ((1u << lane) - 1u)));
        found += __popc(mask);
    }
    return found;
}

/// for_each_new over the first occurrences (no earlier cell of the row holds the node).
template <typename Visit>
__device__ long long for_each_unique(const RowCandidates& row, Visit&& visit)
{
    return for_each_new(row, [&](long long p, index_type value) { return row.first(p, value); }, visit);
}

/// Slots of each warp's hash set of a row's columns (shared memory: 32 KB a block).
constexpr int hash_slots = 1024;

/// As for_each_unique, through a hash set of the row's columns in shared memory (`table`,
/// hash_slots ints of this warp): each candidate is inserted once (linear probing, atomicCAS);
/// the lane whose insertion succeeds visits it. O(candidates) instead of for_each_unique's
/// O(candidates x earlier nodes). Rows of more than hash_slots / 2 candidates try it too (a
/// mixed mesh's padded rows hold many -1s, and many candidates repeat): when more than 3/4 of
/// the slots would fill, the row is walked again by for_each_unique (whose visits overwrite
/// every slot). The slots differ from for_each_unique's, the set of columns does not (it is
/// sorted afterwards).
template <typename Visit>
__device__ long long for_each_unique_hashed(const RowCandidates& row, int* table, Visit&& visit)
{
    const long long total = row.count * row.npe;
    int size = 64;
    while (size < 2 * total && size < hash_slots) size *= 2;
    // Below the limit before a batch, at most 32 more: the table never fills.
    const long long limit = 2 * total <= size ? total : size * 3 / 4 - 32;
    for (int i = threadIdx.x % 32; i < size; i += 32) table[i] = -1;
    __syncwarp();
    const unsigned mask = static_cast<unsigned>(size - 1);
    const long long found = for_each_new(row, [&](long long, index_type value) {
        if (value < 0) return false;  // padding
        for (unsigned h = (static_cast<unsigned>(value) * 2654435761u) & mask;; h = (h + 1) & mask) {
            const int old = atomicCAS(&table[h], -1, value);
            if (old == -1) return true;
            if (old == value) return false;
        }
    }, visit, limit);
    __syncwarp();  // the table is cleared for the warp's next row only after every lane is done
    return found >= 0 ? found : for_each_unique(row, visit);
}

/// lengths[r + 1] = the number of distinct columns of row r (one warp per row).
__global__ void row_lengths_kernel(index_type rows, int npe, const index_type* __restrict__ cells,
                                   const unsigned long long* __restrict__ offsets,
                                   const index_type* __restrict__ node_cells,
                                   long long* __restrict__ lengths)
{
    __shared__ int tables[block_size / 32][hash_slots];
    const long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
    if (r >= rows) return;
    const RowCandidates row{cells, node_cells + offsets[r],
                            static_cast<long long>(offsets[r + 1] - offsets[r]), npe};
    const long long count =
        for_each_unique_hashed(row, tables[threadIdx.x / 32], [](index_type, long long) {});
    if (threadIdx.x % 32 == 0) lengths[r + 1] = count;
}

/// The distinct columns of each row, unsorted, at the row's offset in `columns`.
template <typename O>
__global__ void row_columns_kernel(index_type rows, int npe, const index_type* __restrict__ cells,
                                   const unsigned long long* __restrict__ offsets,
                                   const index_type* __restrict__ node_cells,
                                   const O* __restrict__ row_ptr,
                                   index_type* __restrict__ columns)
{
    __shared__ int tables[block_size / 32][hash_slots];
    const long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
    if (r >= rows) return;
    const RowCandidates row{cells, node_cells + offsets[r],
                            static_cast<long long>(offsets[r + 1] - offsets[r]), npe};
    index_type* out = columns + row_ptr[r];
    for_each_unique_hashed(row, tables[threadIdx.x / 32],
                           [&](index_type value, long long slot) { out[slot] = value; });
}

/// row_ptr (offsets of type O) from the 64-bit inclusive sums of the row lengths.
template <typename O>
__global__ void row_offsets_from_sums_kernel(std::size_t count, const long long* __restrict__ wide,
                                      O* __restrict__ narrow)
{
    const std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (t < count) narrow[t] = static_cast<O>(wide[t]);
}

/// Position of each local entry (i, j) in the CSR arrays: binary search in the row.
__global__ void cell_to_csr_kernel(std::size_t num_entries, int npe,
                                   const index_type* __restrict__ cells,
                                   const index_type* __restrict__ row_ptr,
                                   const index_type* __restrict__ col_idx,
                                   index_type* __restrict__ pos)
{
    const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (k >= num_entries) return;
    const std::size_t e = k / (npe * npe);
    const int local = static_cast<int>(k % (npe * npe));
    const index_type row = cells[e * npe + local / npe];
    const index_type col = cells[e * npe + local % npe];
    if (row < 0 || col < 0) {  // padding
        pos[k] = -1;
        return;
    }
    index_type lo = row_ptr[row], hi = row_ptr[row + 1];
    while (lo < hi) {
        const index_type mid = lo + (hi - lo) / 2;
        if (col_idx[mid] < col) lo = mid + 1; else hi = mid;
    }
    pos[k] = lo;
}

/// The rows and columns of a pattern, with offsets of type O, before any positions.
template <typename O>
struct PatternArrays {
    Array<O> row_ptr;
    Array<index_type> col_idx;
};

/// The cells around each node and the length of each row: the first half of a pattern.
struct RowCounts {
    Array<unsigned long long> offsets;  ///< rows + 1: where each node's cells start
    Array<index_type> node_cells;       ///< the cells around each node
    Array<long long> lengths;           ///< rows + 1: inclusive sums of the row lengths
    long long total = 0;                ///< the pattern's entries
};

RowCounts count_rows(const ExecPtr& exec, index_type num_nodes, const Array<index_type>& cells, int npe)
{
    auto stream = static_cast<cudaStream_t>(exec->stream());
    const std::size_t num_cells = cells.size() / npe;
    const std::size_t entries = num_cells * npe;
    const std::size_t rows = static_cast<std::size_t>(num_nodes);
    RowCounts counts;

    // The cells around each node.
    counts.offsets = Array<unsigned long long>(exec, rows + 1);
    Array<unsigned long long> cursor(exec, rows + 1);
    counts.node_cells = Array<index_type>(exec, entries);
    unsigned long long* offsets = counts.offsets.data();
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(offsets, 0, (rows + 1) * sizeof(unsigned long long), stream));
    if (entries > 0) {
        count_node_cells_kernel<<<grid_for(entries), block_size, 0, stream>>>(entries, cells.data(), offsets);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    std::size_t scan_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, offsets, offsets, rows + 1, stream));
    Array<char> scan_temp(exec, scan_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scan_temp.data(), scan_bytes, offsets, offsets,
                                                    rows + 1, stream));
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(cursor.data(), offsets, (rows + 1) * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToDevice, stream));
    if (entries > 0) {
        fill_node_cells_kernel<<<grid_for(entries), block_size, 0, stream>>>(
            entries, npe, cells.data(), cursor.data(), counts.node_cells.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    cursor = Array<unsigned long long>();

    // Row lengths (64-bit sums: nnz is checked before it is narrowed).
    counts.lengths = Array<long long>(exec, rows + 1);
    long long* lengths = counts.lengths.data();
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(lengths, 0, (rows + 1) * sizeof(long long), stream));
    if (rows > 0) {
        row_lengths_kernel<<<grid_for(rows * 32), block_size, 0, stream>>>(
            num_nodes, npe, cells.data(), offsets, counts.node_cells.data(), lengths);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    std::size_t sum_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, sum_bytes, lengths, lengths, rows + 1, stream));
    if (sum_bytes > scan_temp.size()) scan_temp = Array<char>(exec, sum_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scan_temp.data(), sum_bytes, lengths, lengths,
                                                    rows + 1, stream));
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&counts.total, lengths + rows, sizeof(long long),
                                      cudaMemcpyDeviceToHost, stream));
    exec->synchronize();
    return counts;
}

/// The second half: offsets of type O (index_type only after checked_pattern_nnz) and the
/// sorted columns of each row; frees counts as it goes.
template <typename O>
PatternArrays<O> fill_rows(const ExecPtr& exec, index_type num_nodes, const Array<index_type>& cells,
                           int npe, RowCounts counts)
{
    auto stream = static_cast<cudaStream_t>(exec->stream());
    const std::size_t rows = static_cast<std::size_t>(num_nodes);
    const auto nnz = static_cast<std::size_t>(counts.total);
    PatternArrays<O> pattern;
    pattern.row_ptr = Array<O>(exec, rows + 1);
    row_offsets_from_sums_kernel<<<grid_for(rows + 1), block_size, 0, stream>>>(
        rows + 1, counts.lengths.data(), pattern.row_ptr.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    exec->synchronize();
    counts.lengths = Array<long long>();
    Array<index_type> unsorted(exec, nnz);
    if (rows > 0) {
        row_columns_kernel<<<grid_for(rows * 32), block_size, 0, stream>>>(
            num_nodes, npe, cells.data(), counts.offsets.data(), counts.node_cells.data(),
            pattern.row_ptr.data(), unsorted.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    exec->synchronize();
    counts.offsets = Array<unsigned long long>();
    counts.node_cells = Array<index_type>();
    pattern.col_idx = Array<index_type>(exec, nnz);
    // CUB's item count is 64-bit: a wide pattern sorts in one call too.
    const auto items = static_cast<long long>(nnz);
    std::size_t sort_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
        nullptr, sort_bytes, unsorted.data(), pattern.col_idx.data(), items, num_nodes,
        pattern.row_ptr.data(), pattern.row_ptr.data() + 1, stream));
    Array<char> sort_temp(exec, sort_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
        sort_temp.data(), sort_bytes, unsorted.data(), pattern.col_idx.data(), items, num_nodes,
        pattern.row_ptr.data(), pattern.row_ptr.data() + 1, stream));
    exec->synchronize();  // unsorted and sort_temp are freed here
    return pattern;
}

/// The narrow pattern from its arrays, with the position of every local entry when positions.
CsrPattern with_positions(const ExecPtr& exec, index_type num_nodes, const Array<index_type>& cells,
                          int npe, PatternArrays<index_type> arrays, bool positions)
{
    auto stream = static_cast<cudaStream_t>(exec->stream());
    const std::size_t num_cells = cells.size() / npe;
    CsrPattern pattern;
    pattern.rows = num_nodes;
    pattern.row_ptr = std::move(arrays.row_ptr);
    pattern.col_idx = std::move(arrays.col_idx);
    if (!positions) return pattern;
    const std::size_t local_entries = num_cells * npe * npe;
    pattern.cell_to_csr = Array<index_type>(exec, local_entries);
    if (local_entries > 0) {
        cell_to_csr_kernel<<<grid_for(local_entries), block_size, 0, stream>>>(
            local_entries, npe, cells.data(), pattern.row_ptr.data(), pattern.col_idx.data(),
            pattern.cell_to_csr.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    exec->synchronize();
    return pattern;
}

}  // namespace

AnyCsrPattern build_any_csr_pattern(const ExecPtr& exec, index_type num_nodes,
                                    const Array<index_type>& cells, int npe, PatternOffsets offsets,
                                    bool positions)
{
    RowCounts counts = count_rows(exec, num_nodes, cells, npe);
    if (offsets == PatternOffsets::narrow) checked_pattern_nnz(counts.total);
    if (offsets != PatternOffsets::wide && counts.total <= std::numeric_limits<index_type>::max())
        return with_positions(exec, num_nodes, cells, npe,
                              fill_rows<index_type>(exec, num_nodes, cells, npe, std::move(counts)), positions);
    PatternArrays<wide_offset_type> arrays =
        fill_rows<wide_offset_type>(exec, num_nodes, cells, npe, std::move(counts));
    WideCsrPattern pattern;
    pattern.rows = num_nodes;
    pattern.row_ptr = std::move(arrays.row_ptr);
    pattern.col_idx = std::move(arrays.col_idx);
    return pattern;
}

}  // namespace gpufem::kernels::cuda
