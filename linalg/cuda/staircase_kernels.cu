// Staircase SELL on the device: the slice fill (conversion) and the SpMV, one kernel per
// group on its own stream or a single launch over all groups.
//
// Launch configuration: one thread per row, StaircaseMatrix::block threads a block (256 by
// default whatever the slice height: the paper's blocks of sh threads cap occupancy for
// sh = 32 and gain nothing, the reads stay coalesced because consecutive threads of a slice
// read consecutive entries; the option lets `bench spmv --staircase-sweep` run the paper's).
// Padding rows past the end of the matrix are not read at all.
#include <algorithm>
#include <utility>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/staircase.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;  ///< the conversion's blocks
constexpr int max_block = 1024;  ///< the SpMV kernels' bound (StaircaseMatrix::block)

/// Row lengths with a fully unrolled kernel (FE/FV rows: Dirichlet 1, FV 4-7, Q1 2D 4/6/9,
/// Q1 3D 8/12/18/27, Q2 2D 9/15/25); any other length takes the runtime-bound kernel.
using unrolled_lengths = std::integer_sequence<int, 1, 4, 5, 6, 7, 8, 9, 12, 15, 18, 25, 27>;

/// Dot product of one row with x: the row's entries lie sh apart from col / val. Length > 0
/// fixes the loop bound at compile time; 0 uses `length`.
template <typename V, int Length>
__device__ __forceinline__ V row_dot(index_type length, index_type sh,
                                     const index_type* __restrict__ col,
                                     const V* __restrict__ val, const V* __restrict__ x)
{
    V sum = 0;
    if constexpr (Length > 0) {
#pragma unroll
        for (int k = 0; k < Length; ++k) {
            // Matrix entries are read once: stream them (evict first) and keep x in cache.
            const index_type c = __ldcs(col + k * sh);
            const V v = __ldcs(val + k * sh);
            if (c >= 0) sum += v * __ldg(x + c);
        }
    } else {
#pragma unroll 4
        for (index_type k = 0; k < length; ++k) {
            const index_type c = __ldcs(col + k * sh);
            const V v = __ldcs(val + k * sh);
            if (c >= 0) sum += v * __ldg(x + c);
        }
    }
    return sum;
}

/// Row j (counted from the group's first row) of group g: y[row] = alpha (A x)[row] + beta y[row].
template <typename V, int Length>
__device__ __forceinline__ void group_row(const StaircaseGroup& g, index_type j, index_type sh,
                                          const index_type* __restrict__ col,
                                          const V* __restrict__ val, V alpha,
                                          const V* __restrict__ x, V beta, V* __restrict__ y)
{
    const index_type slice = j / sh;
    const index_type base = g.offset + slice * g.length * sh + (j - slice * sh);
    const V sum = row_dot<V, Length>(g.length, sh, col + base, val + base, x);
    const index_type row = g.row_start + j;
    y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/// One group (the paper's staircase_SpMV): thread j computes row g.row_start + j.
template <typename V, int Length>
__global__ void __launch_bounds__(max_block)
    staircase_group_kernel(StaircaseGroup g, index_type rows, index_type sh,
                           const index_type* __restrict__ col, const V* __restrict__ val,
                           V alpha, const V* __restrict__ x, V beta, V* __restrict__ y)
{
    const index_type j = static_cast<index_type>(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= rows) return;  // rows: the group's rows that are rows of the matrix
    group_row<V, Length>(g, j, sh, col, val, alpha, x, beta, y);
}

/// Index of the group holding `row` (row_start strictly increases along the table).
__device__ __forceinline__ int find_group(const StaircaseGroup* __restrict__ groups, int count,
                                          index_type row)
{
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (__ldg(&groups[mid].row_start) <= row) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/// Every group in one launch: thread `row` finds its group in the table.
template <typename V>
__global__ void __launch_bounds__(max_block)
    staircase_single_kernel(const StaircaseGroup* __restrict__ groups, int group_count,
                            index_type rows, index_type sh, const index_type* __restrict__ col,
                            const V* __restrict__ val, V alpha, const V* __restrict__ x, V beta,
                            V* __restrict__ y)
{
    const index_type row = static_cast<index_type>(blockIdx.x * blockDim.x + threadIdx.x);
    if (row >= rows) return;
    const StaircaseGroup g = groups[find_group(groups, group_count, row)];
    group_row<V, 0>(g, row - g.row_start, sh, col, val, alpha, x, beta, y);
}

/// Conversion: thread t writes stored row t (padding rows past the matrix included) into its
/// slice, padding with column -1 and value 0. Rows never exceed their group's length: the
/// groups were built from these rows' lengths.
template <typename V>
__global__ void __launch_bounds__(block_size)
    staircase_fill_kernel(const StaircaseGroup* __restrict__ groups, int group_count,
                          index_type rows, index_type stored_rows, index_type sh,
                          const index_type* __restrict__ ptr, const index_type* __restrict__ in_col,
                          const V* __restrict__ in_val, index_type* __restrict__ col,
                          V* __restrict__ val)
{
    const index_type row = static_cast<index_type>(blockIdx.x * blockDim.x + threadIdx.x);
    if (row >= stored_rows) return;
    const StaircaseGroup g = groups[find_group(groups, group_count, row)];
    const index_type j = row - g.row_start;
    const index_type slice = j / sh;
    const index_type base = g.offset + slice * g.length * sh + (j - slice * sh);
    const index_type begin = row < rows ? ptr[row] : 0;
    const index_type len = row < rows ? min(ptr[row + 1] - begin, g.length) : 0;
    for (index_type k = 0; k < g.length; ++k) {
        const bool real = k < len;
        col[base + k * sh] = real ? in_col[begin + k] : -1;
        val[base + k * sh] = real ? in_val[begin + k] : V(0);
    }
}

unsigned blocks_for(index_type threads, int block = block_size)
{
    return static_cast<unsigned>((static_cast<long long>(threads) + block - 1) / block);
}

/// Launches group g's kernel on `stream`, unrolled when its length is in `unrolled_lengths`.
template <typename V, int... Ls>
void launch_group(std::integer_sequence<int, Ls...>, const StaircaseMatrix<V>& a,
                  const StaircaseGroup& g, V alpha, const V* x, V beta, V* y, cudaStream_t stream)
{
    const index_type rows = std::min(g.rows, a.rows - g.row_start);  // skip padding rows
    if (rows <= 0) return;
    const auto launch = [&](auto length) {
        staircase_group_kernel<V, decltype(length)::value><<<blocks_for(rows, a.block), a.block, 0, stream>>>(
            g, rows, a.slice_height, a.col_idx.data(), a.values.data(), alpha, x, beta, y);
    };
    const bool unrolled =
        ((g.length == Ls ? (launch(std::integral_constant<int, Ls>{}), true) : false) || ...);
    if (!unrolled) launch(std::integral_constant<int, 0>{});
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename V>
void staircase_fill(const Executor& exec, const Csr<V>& permuted, StaircaseMatrix<V>& a)
{
    if (a.groups.empty()) return;
    const index_type stored_rows = a.groups.back().row_start + a.groups.back().rows;
    staircase_fill_kernel<<<blocks_for(stored_rows), block_size, 0,
                            static_cast<cudaStream_t>(exec.stream())>>>(
        a.group_table.data(), static_cast<int>(a.groups.size()), a.rows, stored_rows,
        a.slice_height, permuted.row_ptr.data(), permuted.col_idx.data(), permuted.values.data(),
        a.col_idx.data(), a.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void staircase_spmv(const Executor& exec, const StaircaseMatrix<V>& a, V alpha, const V* x,
                    V beta, V* y, const StaircaseStreams* streams)
{
    if (a.rows == 0 || a.groups.empty()) return;
    const auto main = static_cast<cudaStream_t>(exec.stream());
    if (streams == nullptr || streams->streams.empty()) {
        staircase_single_kernel<<<blocks_for(a.rows, a.block), a.block, 0, main>>>(
            a.group_table.data(), static_cast<int>(a.groups.size()), a.rows, a.slice_height,
            a.col_idx.data(), a.values.data(), alpha, x, beta, y);
        GPUFEM_CUDA_CHECK_LAUNCH();
        return;
    }
    // Fork: every group stream waits for what is queued on the executor's stream (x, y ready).
    const auto fork = static_cast<cudaEvent_t>(streams->fork);
    GPUFEM_CUDA_CHECK(cudaEventRecord(fork, main));
    const std::size_t count = streams->streams.size();
    for (void* s : streams->streams)
        GPUFEM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(s), fork, 0));
    for (std::size_t i = 0; i < a.groups.size(); ++i)
        launch_group(unrolled_lengths{}, a, a.groups[i], alpha, x, beta, y,
                     static_cast<cudaStream_t>(streams->streams[i % count]));
    // Join: the executor's stream waits for every group stream, so y is ordered on it.
    for (std::size_t i = 0; i < count; ++i) {
        const auto join = static_cast<cudaEvent_t>(streams->joins[i]);
        GPUFEM_CUDA_CHECK(cudaEventRecord(join, static_cast<cudaStream_t>(streams->streams[i])));
        GPUFEM_CUDA_CHECK(cudaStreamWaitEvent(main, join, 0));
    }
}

StaircaseStreams create_staircase_streams(const Executor& exec, int groups)
{
    StaircaseStreams s;
    s.device = exec.device_id();
    const int count = std::clamp(groups, 1, StaircaseStreams::kMaxStreams);
    try {
        GPUFEM_CUDA_CHECK(cudaSetDevice(s.device));
        cudaEvent_t fork{};
        GPUFEM_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
        s.fork = fork;
        for (int i = 0; i < count; ++i) {
            cudaStream_t stream{};
            GPUFEM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
            s.streams.push_back(stream);
            cudaEvent_t join{};
            GPUFEM_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
            s.joins.push_back(join);
        }
    } catch (...) {
        destroy_staircase_streams(s);
        throw;
    }
    return s;
}

void destroy_staircase_streams(StaircaseStreams& s) noexcept
{
    for (void* stream : s.streams) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
    for (void* event : s.joins) cudaEventDestroy(static_cast<cudaEvent_t>(event));
    if (s.fork != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(s.fork));
    s.streams.clear();
    s.joins.clear();
    s.fork = nullptr;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(staircase_fill, staircase_spmv)

}  // namespace gpufem::kernels::cuda
