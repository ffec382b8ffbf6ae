// CUDA smoothed-aggregation kernels (solver/multigrid/amg_kernels.hpp): the same parallel
// aggregation as the CPU reference, one thread per row; scans and counts with CUB; the sparse
// products by gpufem's hash product (hash_product.cuh; cuSPARSE's SpGEMM for rows past its
// limit and for explicit blocks), the transpose by a radix sort (radix_transpose.cuh).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_scan.cuh>
#include <cusparse.h>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/cusparse_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/cuda/hash_product.cuh"
#include "solver/multigrid/cuda/radix_transpose.cuh"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::value_type_of;

/// Scratch of the executor split into n flags followed by room for their sum and CUB's
/// temporary storage (no allocation per call: setup calls these once per round).
struct FlagScratch {
    index_type* flags;
    index_type* total;
    void* temp;
    std::size_t temp_bytes;
};

FlagScratch flag_scratch(const Executor& exec, index_type n)
{
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, static_cast<index_type*>(nullptr),
                                             static_cast<index_type*>(nullptr), n, stream_of(exec)));
    const std::size_t flag_bytes = (sizeof(index_type) * (static_cast<std::size_t>(n) + 1) + 255) / 256 * 256;
    char* base = static_cast<char*>(exec.scratch(flag_bytes + 256 + temp_bytes));
    return {reinterpret_cast<index_type*>(base), reinterpret_cast<index_type*>(base + flag_bytes),
            base + flag_bytes + 256, temp_bytes};
}

/// Sum of the scratch's n flags (0/1 values), returned to the host (synchronises).
index_type count_flags(const Executor& exec, const FlagScratch& s, index_type n)
{
    if (n == 0) return 0;
    std::size_t temp_bytes = s.temp_bytes;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(s.temp, temp_bytes, s.flags, s.total, n, stream_of(exec)));
    index_type host = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, s.total, sizeof(index_type), cudaMemcpyDeviceToHost,
                                      stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return host;
}

/// In-place exclusive scan of values[0..n], returning values[n] afterwards (the total of the
/// first n entries; values[n] must be 0 on entry). Synchronises.
index_type exclusive_scan_total(const Executor& exec, index_type* values, index_type n)
{
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, values, values, n + 1,
                                                    stream_of(exec)));
    DeviceBuffer temp(exec, temp_bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), temp_bytes, values, values,
                                                    n + 1, stream_of(exec)));
    index_type host = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, values + n, sizeof(index_type),
                                      cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return host;
}

__global__ void localize_columns_kernel(long long n, index_type first, index_type owned,
                                        const index_type* __restrict__ ghosts, index_type count,
                                        index_type* __restrict__ columns)
{
    const long long k = thread_index();
    if (k < n) columns[k] = local_column(columns[k], first, owned, ghosts, count);
}

__global__ void mis_init_kernel(index_type n, const index_type* __restrict__ row_ptr,
                                const std::uint8_t* __restrict__ strong, MisState* state)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool any = false;
    for (index_type k = row_ptr[i]; k < row_ptr[i + 1] && !any; ++k) any = strong[k] != 0;
    state[i] = any ? MisState::undecided : MisState::isolated;
}

__global__ void mis_tuples_kernel(index_type n, const MisState* __restrict__ state,
                                  std::uint64_t* __restrict__ tuple)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tuple[i] = mis_tuple(i, state[i]);
}

/// Lanes per row of the propagation: the rows' strong entries read side by side (coalesced),
/// their maximum by shuffles (the same result as one thread per row).
constexpr int propagate_lanes = 8;

__global__ void mis_propagate_kernel(index_type n, const index_type* __restrict__ row_ptr,
                                     const index_type* __restrict__ col_idx,
                                     const std::uint8_t* __restrict__ strong,
                                     const std::uint64_t* __restrict__ in,
                                     std::uint64_t* __restrict__ out)
{
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const index_type i = static_cast<index_type>(thread / propagate_lanes);
    const int lane = static_cast<int>(thread % propagate_lanes);
    const bool row = i < n;  // every lane of the warp stays for the shuffles
    std::uint64_t best = row && lane == 0 ? in[i] : 0;
    if (row)
        for (index_type k = row_ptr[i] + lane; k < row_ptr[i + 1]; k += propagate_lanes)
            if (strong[k]) {
                const std::uint64_t t = in[col_idx[k]];
                best = t > best ? t : best;
            }
    for (int offset = propagate_lanes / 2; offset > 0; offset >>= 1) {
        const std::uint64_t other = __shfl_down_sync(0xffffffffu, best, offset, propagate_lanes);
        best = other > best ? other : best;
    }
    if (row && lane == 0) out[i] = best;
}

__global__ void mis_select_kernel(index_type n, MisState* __restrict__ state,
                                  const std::uint64_t* __restrict__ own,
                                  const std::uint64_t* __restrict__ max2,
                                  index_type* __restrict__ undecided)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    index_type still = 0;
    if (state[i] == MisState::undecided) {
        if (max2[i] == own[i])
            state[i] = MisState::selected;
        else if (mis_tuple_selected(max2[i]))
            state[i] = MisState::excluded;
        else
            still = 1;
    }
    undecided[i] = still;
}

__global__ void selected_flags_kernel(index_type n, const MisState* __restrict__ state,
                                      index_type* __restrict__ flags)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = state[i] == MisState::selected ? 1 : 0;
    if (i == n) flags[n] = 0;
}

__global__ void roots_kernel(index_type n, const MisState* __restrict__ state,
                             const index_type* __restrict__ rank, index_type* __restrict__ agg,
                             index_type* __restrict__ roots)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (state[i] == MisState::selected) roots[rank[i]] = i;
    agg[i] = state[i] == MisState::selected ? rank[i]
             : state[i] == MisState::isolated ? -2
                                              : -1;
}

__global__ void join_kernel(index_type n, const index_type* __restrict__ row_ptr,
                            const index_type* __restrict__ col_idx,
                            const std::uint8_t* __restrict__ strong,
                            const index_type* __restrict__ in, index_type* __restrict__ out,
                            index_type* __restrict__ unassigned)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const index_type a = joined_aggregate(i, row_ptr, col_idx, strong, in);
    out[i] = a;
    unassigned[i] = a == -1 ? 1 : 0;
}

__global__ void tentative_counts_kernel(index_type n, const index_type* __restrict__ agg,
                                        index_type* __restrict__ row_ptr)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) row_ptr[i] = agg[i] >= 0 ? 1 : 0;
    if (i == n) row_ptr[n] = 0;
}

__global__ void tentative_columns_kernel(index_type n, const index_type* __restrict__ agg,
                                         const index_type* __restrict__ row_ptr,
                                         index_type* __restrict__ col_idx)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && agg[i] >= 0) col_idx[row_ptr[i]] = agg[i];
}

/// strongest[i] = the largest coupling measure of row i (amg_coupling), 0 for none.
template <typename V>
__global__ void strongest_coupling_kernel(index_type n, const index_type* __restrict__ ptr,
                                          const index_type* __restrict__ col,
                                          const V* __restrict__ val, const V* __restrict__ diag,
                                          double* __restrict__ strongest)
{
    // propagate_lanes lanes per row, side by side along it (coalesced); max by shuffles.
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const index_type i = static_cast<index_type>(thread / propagate_lanes);
    const bool row = i < n;  // every lane of the warp stays for the shuffles
    double best = 0;
    if (row)
        for (index_type k = ptr[i] + static_cast<index_type>(thread % propagate_lanes);
             k < ptr[i + 1]; k += propagate_lanes)
            if (col[k] != i) best = fmax(best, amg_coupling(val[k], diag[i], diag[col[k]]));
    for (int offset = propagate_lanes / 2; offset > 0; offset >>= 1)
        best = fmax(best, __shfl_down_sync(0xffffffffu, best, offset, propagate_lanes));
    if (row && thread % propagate_lanes == 0) strongest[i] = best;
}

template <typename V>
__global__ void strength_kernel(index_type n, const index_type* __restrict__ ptr,
                                const index_type* __restrict__ col, const V* __restrict__ val,
                                const V* __restrict__ diag, double theta,
                                const double* __restrict__ strongest,
                                std::uint8_t* __restrict__ strong)
{
    // propagate_lanes lanes per row, side by side along it (coalesced).
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const index_type i = static_cast<index_type>(thread / propagate_lanes);
    if (i >= n) return;
    for (index_type k = ptr[i] + static_cast<index_type>(thread % propagate_lanes); k < ptr[i + 1];
         k += propagate_lanes) {
        const index_type j = col[k];
        strong[k] = j != i && amg_is_strong(amg_coupling(val[k], diag[i], diag[j]), theta,
                                            strongest[i], strongest[j]);
    }
}

/// Row i of the prolongator: the distinct aggregates met (own first, then in column order;
/// a weak column's value, with strong given, counts on the own aggregate's) and, with values,
/// P's entries; false when more than amg_row_aggregates_limit.
template <typename V, bool with_values>
__device__ bool prolongator_row(index_type i, const index_type* __restrict__ ptr,
                                const index_type* __restrict__ col, const V* __restrict__ val,
                                const std::uint8_t* __restrict__ strong,
                                const index_type* __restrict__ agg, V scale,
                                index_type* seen, V* sums, int& count)
{
    count = 0;
    const auto add = [&](index_type g, V value) {
        if (g < 0) return true;
        for (int m = 0; m < count; ++m)
            if (seen[m] == g) {
                if (with_values) sums[m] += value;
                return true;
            }
        if (count == amg_row_aggregates_limit) return false;
        seen[count] = g;
        if (with_values) sums[count] = value;
        ++count;
        return true;
    };
    if (!add(agg[i], V(1))) return false;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        const index_type g = amg_kept_entry(i, col[k], strong, k) ? agg[col[k]] : agg[i];
        if (!add(g, with_values ? -scale * val[k] : V(0))) return false;
    }
    return true;
}

template <typename V>
__global__ void prolongator_lengths_kernel(index_type n, const index_type* __restrict__ ptr,
                                           const index_type* __restrict__ col,
                                           const std::uint8_t* __restrict__ strong,
                                           const index_type* __restrict__ agg,
                                           index_type* __restrict__ p_ptr, int* __restrict__ overflow)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == n) p_ptr[n] = 0;
    if (i >= n) return;
    index_type seen[amg_row_aggregates_limit];
    int count = 0;
    if (!prolongator_row<V, false>(i, ptr, col, static_cast<const V*>(nullptr), strong, agg, V(0), seen,
                                   static_cast<V*>(nullptr), count)) {
        *overflow = 1;
        count = 0;
    }
    p_ptr[i] = count;
}

template <typename V>
__global__ void prolongator_fill_kernel(index_type n, const index_type* __restrict__ ptr,
                                        const index_type* __restrict__ col,
                                        const V* __restrict__ val,
                                        const std::uint8_t* __restrict__ strong,
                                        const index_type* __restrict__ agg,
                                        const V* __restrict__ dinv, V omega,
                                        const index_type* __restrict__ p_ptr,
                                        index_type* __restrict__ p_col, V* __restrict__ p_val)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    index_type seen[amg_row_aggregates_limit];
    V sums[amg_row_aggregates_limit];
    int count = 0;
    prolongator_row<V, true>(i, ptr, col, val, strong, agg, omega * dinv[i], seen, sums, count);
    for (int m = 1; m < count; ++m) {  // insertion sort by column
        const index_type g = seen[m];
        const V s = sums[m];
        int at = m;
        while (at > 0 && seen[at - 1] > g) {
            seen[at] = seen[at - 1];
            sums[at] = sums[at - 1];
            --at;
        }
        seen[at] = g;
        sums[at] = s;
    }
    const index_type out = p_ptr[i];
    for (int m = 0; m < count; ++m) {
        p_col[out + m] = seen[m];
        p_val[out + m] = sums[m];
    }
}

template <typename V>
__global__ void jacobi_operator_lengths_kernel(index_type n, const index_type* __restrict__ ptr,
                                               const index_type* __restrict__ col,
                                               const std::uint8_t* __restrict__ strong,
                                               index_type* __restrict__ s_ptr)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == n) s_ptr[n] = 0;
    if (i >= n) return;
    index_type kept = 0;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) kept += amg_kept_entry(i, col[k], strong, k);
    s_ptr[i] = kept;
}

template <typename V>
__global__ void jacobi_operator_kernel(index_type n, const index_type* __restrict__ ptr,
                                       const index_type* __restrict__ col,
                                       const V* __restrict__ val,
                                       const std::uint8_t* __restrict__ strong,
                                       const V* __restrict__ dinv, V omega,
                                       const index_type* __restrict__ s_ptr,
                                       index_type* __restrict__ s_col, V* __restrict__ s)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    amg_jacobi_row(i, ptr[i], ptr[i + 1], col, val, strong, omega * dinv[i], s_col + s_ptr[i], s + s_ptr[i]);
}

template <typename V>
__global__ void chebyshev_step_kernel(index_type n, const V* __restrict__ b,
                                      const V* __restrict__ ax, const V* __restrict__ dinv,
                                      V c_d, V c_r, V* __restrict__ d, V* __restrict__ x)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (ax == nullptr) {
        const V di = c_r * dinv[i] * b[i];
        d[i] = di;
        x[i] = di;
    } else {
        const V di = c_d * d[i] + c_r * dinv[i] * (b[i] - ax[i]);
        d[i] = di;
        x[i] += di;
    }
}

template <typename V>
__global__ void start_vector_kernel(index_type n, V* __restrict__ x)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = static_cast<V>(hashed_unit(i));
}

template <typename V>
__global__ void residual_kernel(index_type n, const V* __restrict__ b, V* __restrict__ r)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = b[i] - r[i];
}

/// One thread per row: local's and wide's entries of the row merged in column order.
template <typename V>
__global__ void merge_global_rows_kernel(index_type rows, const index_type* __restrict__ lp,
                                         const index_type* __restrict__ lc, const V* __restrict__ lv,
                                         const index_type* __restrict__ wp, const index_type* __restrict__ wc,
                                         const V* __restrict__ wv, index_type first, index_type* __restrict__ lengths,
                                         index_type* __restrict__ columns, V* __restrict__ values)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    const index_type k_end = lp[i + 1], w_end = wp[i + 1];
    index_type k = lp[i], w = wp[i], out = lp[i] + wp[i];
    while (k < k_end || w < w_end) {
        const bool take_local = w == w_end || (k < k_end && lc[k] + first < wc[w]);
        columns[out] = take_local ? lc[k] + first : wc[w];
        values[out++] = take_local ? lv[k++] : wv[w++];
    }
    lengths[i] = k_end - lp[i] + w_end - wp[i];
}

/// counts[i] = the entries of row i of the grid transfer; counts[rows] = 0.
__global__ void grid_transfer_count_kernel(GridBox box, int dim, index_type* __restrict__ counts)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long rows = box.count();
    if (i > rows) return;
    if (i == rows) {
        counts[rows] = 0;
        return;
    }
    long long f[3];
    box.point(i, f);
    index_type count = 1;
    for (int a = 0; a < dim; ++a) count *= f[a] % 2 ? 2 : 1;
    counts[i] = count;
}

/// Row i of the grid transfer: its corners' global numbers and weights.
template <typename V>
__global__ void grid_transfer_fill_kernel(GridBox box, int dim, GridLevelView coarse,
                                          const index_type* __restrict__ row_ptr, index_type* __restrict__ columns,
                                          V* __restrict__ values)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < box.count()) grid_transfer_row(box, dim, coarse, i, row_ptr, columns, values);
}

/// columns[k] = map[columns[k]].
__global__ void map_columns_kernel(std::size_t n, const index_type* __restrict__ map, index_type* __restrict__ columns)
{
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < n) columns[k] = map[columns[k]];
}

/// columns[k] += inside within [begin, end), += outside elsewhere.
__global__ void shift_columns_kernel(std::size_t n, index_type begin, index_type end, index_type inside,
                                     index_type outside, index_type* __restrict__ columns)
{
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < n) columns[k] += columns[k] >= begin && columns[k] < end ? inside : outside;
}

/// out[r] = ptr[r] - ptr[0] for r <= rows.
__global__ void rebase_row_offsets_kernel(index_type rows, const index_type* __restrict__ ptr,
                                          index_type* __restrict__ out)
{
    const index_type r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r <= rows) out[r] = ptr[r] - ptr[0];
}

/// One thread per row of [left | right]: its offset (and the last one), then its entries.
template <typename V, typename O>
__global__ void join_columns_kernel(index_type rows, const O* __restrict__ lp,
                                    const index_type* __restrict__ lc, const V* __restrict__ lv,
                                    const index_type* __restrict__ rp, const index_type* __restrict__ rc,
                                    const V* __restrict__ rv, index_type shift, O* __restrict__ row_ptr,
                                    index_type* __restrict__ columns, V* __restrict__ values)
{
    // One warp per row: its lanes copy consecutive entries (coalesced reads and writes).
    const std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (i > rows) return;
    if (lane == 0) row_ptr[i] = lp[i] + rp[i];
    if (i == rows) return;
    const O out = lp[i] + rp[i];
    const auto left = static_cast<index_type>(lp[i + 1] - lp[i]);
    for (index_type k = lane; k < left; k += 32) {
        columns[out + k] = lc[lp[i] + k];
        values[out + k] = lv[lp[i] + k];
    }
    for (index_type k = lane; k < rp[i + 1] - rp[i]; k += 32) {
        columns[out + left + k] = rc[rp[i] + k] + shift;
        values[out + left + k] = rv[rp[i] + k];
    }
}

/// row_ptr[i] = top[i] for i <= top_rows; row_ptr[top_rows + 1 + j] = bottom[j + 1] + top[top_rows].
__global__ void stacked_offsets_kernel(index_type top_rows, index_type bottom_rows, const index_type* __restrict__ top,
                                       const index_type* __restrict__ bottom, index_type* __restrict__ row_ptr)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= top_rows) row_ptr[i] = top[i];
    else if (i <= top_rows + bottom_rows) row_ptr[i] = bottom[i - top_rows] + top[top_rows];
}

/// One warp per row of the dense matrix, summed in double.
template <typename V>
__global__ void dense_matvec_kernel(index_type n, const V* __restrict__ m,
                                    const V* __restrict__ x, V* __restrict__ y)
{
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const index_type row = static_cast<index_type>(thread / 32);
    const int lane = threadIdx.x % 32;
    if (row >= n) return;
    const V* r = m + static_cast<std::size_t>(row) * n;
    double sum = 0;
    for (index_type j = lane; j < n; j += 32) sum += static_cast<double>(r[j]) * x[j];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = static_cast<V>(sum);
}

/// A cuSPARSE handle on the executor's stream, destroyed on scope exit.
class SparseHandle {
public:
    explicit SparseHandle(const Executor& exec)
    {
        GPUFEM_CUSPARSE_CHECK(gpufem::cuda::cusparse().create(&handle_));
        GPUFEM_CUSPARSE_CHECK(gpufem::cuda::cusparse().set_stream(handle_, stream_of(exec)));
    }
    ~SparseHandle() { gpufem::cuda::cusparse().destroy(handle_); }
    SparseHandle(const SparseHandle&) = delete;
    SparseHandle& operator=(const SparseHandle&) = delete;
    cusparseHandle_t get() const { return handle_; }

private:
    cusparseHandle_t handle_ = nullptr;
};

/// A cuSPARSE CSR descriptor over a Csr's arrays.
template <typename V>
cusparseSpMatDescr_t csr_descriptor(const Csr<V>& a)
{
    cusparseSpMatDescr_t d = nullptr;
    GPUFEM_CUSPARSE_CHECK(gpufem::cuda::cusparse().create_csr(
        &d, a.rows, a.cols, static_cast<std::int64_t>(a.nnz()),
        const_cast<index_type*>(a.row_ptr.data()), const_cast<index_type*>(a.col_idx.data()),
        const_cast<V*>(a.values.data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, value_type_of<V>()));
    return d;
}

}  // namespace

void amg_map_columns(const Executor& exec, std::size_t n, const index_type* map, index_type* columns)
{
    if (n == 0) return;
    map_columns_kernel<<<static_cast<unsigned>((n + block_size - 1) / block_size), block_size, 0, stream_of(exec)>>>(
        n, map, columns);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void amg_shift_columns(const Executor& exec, std::size_t n, index_type begin, index_type end, index_type inside,
                       index_type outside, index_type* columns)
{
    if (n == 0) return;
    shift_columns_kernel<<<static_cast<unsigned>((n + block_size - 1) / block_size), block_size, 0, stream_of(exec)>>>(
        n, begin, end, inside, outside, columns);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void amg_localize_columns(const Executor& exec, std::size_t n, index_type first, index_type owned,
                          const index_type* ghosts, index_type count, index_type* columns)
{
    if (n == 0) return;
    localize_columns_kernel<<<grid_for(static_cast<long long>(n)), block_size, 0, stream_of(exec)>>>(
        static_cast<long long>(n), first, owned, ghosts, count, columns);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

index_type amg_distinct_values(const Executor& exec, std::size_t n, const index_type* values, index_type* out)
{
    if (n == 0) return 0;
    // Sorted into out (a radix sort of keys), then the first of each run kept (a selection
    // into a buffer as long) and copied back.
    const auto count = static_cast<long long>(n);
    DeviceBuffer sorted(exec, n * sizeof(index_type)), kept(exec, sizeof(index_type));
    std::size_t sort_bytes = 0, unique_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, values, sorted.as<index_type>(), count, 0,
                                                     static_cast<int>(8 * sizeof(index_type)), stream_of(exec)));
    GPUFEM_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_bytes, sorted.as<index_type>(), out,
                                                kept.as<index_type>(), count, stream_of(exec)));
    DeviceBuffer temp(exec, std::max(sort_bytes, unique_bytes));
    GPUFEM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.as<void>(), sort_bytes, values, sorted.as<index_type>(),
                                                     count, 0, static_cast<int>(8 * sizeof(index_type)),
                                                     stream_of(exec)));
    GPUFEM_CUDA_CHECK(cub::DeviceSelect::Unique(temp.as<void>(), unique_bytes, sorted.as<index_type>(), out,
                                                kept.as<index_type>(), count, stream_of(exec)));
    index_type host = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, kept.as<index_type>(), sizeof(index_type), cudaMemcpyDeviceToHost,
                                      stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return host;
}

void amg_rebase_offsets(const Executor& exec, index_type rows, const index_type* ptr, index_type* out)
{
    rebase_row_offsets_kernel<<<grid_for(rows + 1), block_size, 0, stream_of(exec)>>>(rows, ptr, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

index_type amg_grid_transfer_offsets(const Executor& exec, GridBox box, int dim, index_type* row_ptr)
{
    const auto rows = static_cast<index_type>(box.count());
    grid_transfer_count_kernel<<<grid_for(rows + 1), block_size, 0, stream_of(exec)>>>(box, dim, row_ptr);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return exclusive_scan_total(exec, row_ptr, rows);
}

void amg_mis_init(const Executor& exec, index_type n, const index_type* row_ptr,
                  const std::uint8_t* strong, MisState* state)
{
    if (n == 0) return;
    mis_init_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, row_ptr, strong, state);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void amg_mis_tuples(const Executor& exec, index_type n, const MisState* state, std::uint64_t* tuple)
{
    if (n == 0) return;
    mis_tuples_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, state, tuple);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void amg_mis_propagate(const Executor& exec, index_type n, const index_type* row_ptr,
                       const index_type* col_idx, const std::uint8_t* strong,
                       const std::uint64_t* in, std::uint64_t* out)
{
    if (n == 0) return;
    mis_propagate_kernel<<<grid_for(static_cast<std::int64_t>(n) * propagate_lanes), block_size, 0,
                           stream_of(exec)>>>(n, row_ptr, col_idx, strong, in, out);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

index_type amg_mis_select(const Executor& exec, index_type n, MisState* state,
                          const std::uint64_t* own, const std::uint64_t* max2)
{
    if (n == 0) return 0;
    const FlagScratch scratch = flag_scratch(exec, n);
    mis_select_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, state, own, max2,
                                                                        scratch.flags);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return count_flags(exec, scratch, n);
}

index_type amg_aggregate_roots(const Executor& exec, index_type n, const MisState* state,
                               index_type* agg, index_type* roots_of)
{
    if (n == 0) return 0;
    DeviceBuffer rank(exec, sizeof(index_type) * (static_cast<std::size_t>(n) + 1));
    selected_flags_kernel<<<grid_for(n + 1), block_size, 0, stream_of(exec)>>>(
        n, state, rank.as<index_type>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    const index_type roots = exclusive_scan_total(exec, rank.as<index_type>(), n);
    roots_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, state, rank.as<index_type>(),
                                                                   agg, roots_of);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return roots;
}

index_type amg_aggregate_join(const Executor& exec, index_type n, const index_type* row_ptr,
                              const index_type* col_idx, const std::uint8_t* strong,
                              const index_type* in, index_type* out)
{
    if (n == 0) return 0;
    const FlagScratch scratch = flag_scratch(exec, n);
    join_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, row_ptr, col_idx, strong, in,
                                                                  out, scratch.flags);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return count_flags(exec, scratch, n);
}

index_type amg_tentative_pattern(const Executor& exec, index_type n, const index_type* agg,
                                 index_type* row_ptr)
{
    tentative_counts_kernel<<<grid_for(n + 1), block_size, 0, stream_of(exec)>>>(n, agg, row_ptr);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return exclusive_scan_total(exec, row_ptr, n);
}

void amg_tentative_columns(const Executor& exec, index_type n, const index_type* agg,
                           const index_type* row_ptr, index_type* col_idx)
{
    if (n == 0) return;
    tentative_columns_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, agg, row_ptr,
                                                                               col_idx);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_strength(const Executor& exec, const Csr<V>& a, const V* diag, double theta,
                  std::uint8_t* strong)
{
    if (a.rows == 0) return;
    DeviceBuffer strongest(exec, sizeof(double) * static_cast<std::size_t>(a.rows));
    const unsigned grid = grid_for(static_cast<std::int64_t>(a.rows) * propagate_lanes);
    strongest_coupling_kernel<V><<<grid, block_size, 0, stream_of(exec)>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), diag, strongest.as<double>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    strength_kernel<V><<<grid, block_size, 0, stream_of(exec)>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), diag, theta,
        strongest.as<double>(), strong);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
index_type amg_jacobi_operator_pattern(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                                       index_type* s_ptr)
{
    jacobi_operator_lengths_kernel<V><<<grid_for(static_cast<std::int64_t>(a.rows) + 1), block_size, 0,
                                        stream_of(exec)>>>(a.rows, a.row_ptr.data(), a.col_idx.data(), strong,
                                                           s_ptr);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return exclusive_scan_total(exec, s_ptr, a.rows);
}

template <typename V>
void amg_jacobi_operator(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong, const V* dinv,
                         V omega, const index_type* s_ptr, index_type* s_col, V* s_values)
{
    if (a.rows == 0) return;
    jacobi_operator_kernel<V><<<grid_for(a.rows), block_size, 0, stream_of(exec)>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), strong, dinv, omega, s_ptr, s_col, s_values);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
index_type amg_prolongator_pattern(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                                   const index_type* agg, index_type* p_ptr)
{
    DeviceBuffer overflow(exec, sizeof(int));
    zero_bytes(exec, overflow.as<int>(), sizeof(int));
    prolongator_lengths_kernel<V><<<grid_for(static_cast<std::int64_t>(a.rows) + 1), block_size, 0,
                                    stream_of(exec)>>>(a.rows, a.row_ptr.data(), a.col_idx.data(),
                                                       strong, agg, p_ptr, overflow.as<int>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    int flag = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&flag, overflow.as<int>(), sizeof(int), cudaMemcpyDeviceToHost,
                                      stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    if (flag) return -1;
    return exclusive_scan_total(exec, p_ptr, a.rows);
}

template <typename V>
void amg_prolongator_fill(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                          const index_type* agg, const V* dinv, V omega, const index_type* p_ptr,
                          index_type* p_col, V* p_val)
{
    if (a.rows == 0) return;
    prolongator_fill_kernel<V><<<grid_for(a.rows), block_size, 0, stream_of(exec)>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), strong, agg, dinv, omega, p_ptr,
        p_col, p_val);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_chebyshev_step(const Executor& exec, index_type n, const V* b, const V* ax, const V* dinv,
                        V c_d, V c_r, V* d, V* x)
{
    if (n == 0) return;
    chebyshev_step_kernel<V><<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, b, ax, dinv, c_d,
                                                                               c_r, d, x);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_start_vector(const Executor& exec, index_type n, V* x)
{
    if (n == 0) return;
    start_vector_kernel<V><<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, x);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
__global__ void lump_into_prolongator_kernel(index_type rows, const index_type* __restrict__ ptr,
                                             const index_type* __restrict__ col, V* __restrict__ val,
                                             const index_type* __restrict__ agg, const V* __restrict__ dinv,
                                             V omega, const V* __restrict__ lumped)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
        if (col[k] == agg[i]) val[k] -= omega * dinv[i] * lumped[i];
}

template <typename V>
void amg_lump_into_prolongator(const Executor& exec, Csr<V>& p, const index_type* agg, const V* dinv, V omega,
                               const V* lumped)
{
    if (p.rows == 0) return;
    lump_into_prolongator_kernel<V><<<grid_for(p.rows), block_size, 0, stream_of(exec)>>>(
        p.rows, p.row_ptr.data(), p.col_idx.data(), p.values.data(), agg, dinv, omega, lumped);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_residual(const Executor& exec, index_type n, const V* b, V* r)
{
    if (n == 0) return;
    residual_kernel<V><<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, b, r);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_merge_global_rows(const Executor& exec, const Csr<V>& local, const Csr<V>& wide, index_type first,
                           index_type* lengths, index_type* columns, V* values)
{
    if (local.rows == 0) return;
    merge_global_rows_kernel<V><<<grid_for(local.rows), block_size, 0, stream_of(exec)>>>(
        local.rows, local.row_ptr.data(), local.col_idx.data(), local.values.data(), wide.row_ptr.data(),
        wide.col_idx.data(), wide.values.data(), first, lengths, columns, values);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V, typename O>
void amg_join_columns(const Executor& exec, const Csr<V, O>& left, const Csr<V>& right, index_type shift,
                      O* row_ptr, index_type* columns, V* values)
{
    const std::int64_t threads = (static_cast<std::int64_t>(left.rows) + 1) * 32;
    join_columns_kernel<V, O><<<static_cast<unsigned>((threads + block_size - 1) / block_size), block_size, 0,
                             stream_of(exec)>>>(
        left.rows, left.row_ptr.data(), left.col_idx.data(), left.values.data(), right.row_ptr.data(),
        right.col_idx.data(), right.values.data(), shift, row_ptr, columns, values);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_stacked_offsets(const Executor& exec, const Csr<V>& top, const Csr<V>& bottom, index_type* row_ptr)
{
    stacked_offsets_kernel<<<grid_for(top.rows + bottom.rows + 1), block_size, 0, stream_of(exec)>>>(
        top.rows, bottom.rows, top.row_ptr.data(), bottom.row_ptr.data(), row_ptr);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_grid_transfer_entries(const Executor& exec, GridBox box, int dim, GridLevelView coarse,
                               const index_type* row_ptr, index_type* columns, V* values)
{
    const auto rows = static_cast<index_type>(box.count());
    if (rows == 0) return;
    grid_transfer_fill_kernel<V><<<grid_for(rows), block_size, 0, stream_of(exec)>>>(box, dim, coarse, row_ptr,
                                                                                     columns, values);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void amg_dense_matvec(const Executor& exec, index_type n, const V* m, const V* x, V* y)
{
    if (n == 0) return;
    dense_matvec_kernel<V><<<grid_for(static_cast<std::int64_t>(n) * 32), block_size, 0,
                             stream_of(exec)>>>(n, m, x, y);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

namespace {

/// c_ptr[r] = block[r] + offset for r < rows (the rows of one block of C into C's offsets).
__global__ void shift_offsets_kernel(index_type rows, const index_type* __restrict__ block,
                                     index_type offset, index_type* __restrict__ c_ptr)
{
    const index_type r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) c_ptr[r] = block[r] + offset;
}

/// out[r] = ptr[r] - ptr[0] for r <= rows (a block's row offsets from 0).
__global__ void rebase_offsets_kernel(index_type rows, const index_type* __restrict__ ptr,
                                      index_type* __restrict__ out)
{
    const index_type r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r <= rows) out[r] = ptr[r] - ptr[0];
}

/// cuSPARSE's SpGEMM refusing a block (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES): its default
/// algorithm has limits of its own below the device's memory (many intermediate products), so
/// the block is split and each half tried again.
struct SpgemmRefused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// GPUFEM_CUSPARSE_CHECK, with a refusal thrown as SpgemmRefused.
void check_spgemm(cusparseStatus_t status, const char* call)
{
    if (status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
        throw SpgemmRefused(std::string("cuSPARSE error '") + gpufem::cuda::cusparse().error_string(status) +
                            "' in " + call);
    GPUFEM_CUSPARSE_CHECK(status);
}

/// One block of rows [begin, end) of C = A B by cuSPARSE's SpGEMM, its offsets into
/// block_ptr. place(nnz), called once the block's size is known, returns where its columns
/// and values go ({nullptr, nullptr}: nowhere, only the size is wanted). Returns the size.
template <typename V, typename Place>
std::int64_t spgemm_block(const Executor& exec, const SparseHandle& handle, const Csr<V>& a,
                          index_type begin, index_type end, index_type entries_before,
                          std::int64_t entries, cusparseSpMatDescr_t db, index_type b_cols,
                          index_type* block_ptr, Place&& place)
{
    const gpufem::cuda::CusparseLibrary& sparse = gpufem::cuda::cusparse();
    const index_type rows = end - begin;
    const ExecPtr& ex = a.executor();
    Array<index_type> a_ptr(ex, static_cast<std::size_t>(rows) + 1);
    rebase_offsets_kernel<<<grid_for(static_cast<std::int64_t>(rows) + 1), block_size, 0,
                            stream_of(exec)>>>(rows, a.row_ptr.data() + begin, a_ptr.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    cusparseSpMatDescr_t da = nullptr, dc = nullptr;
    cusparseSpGEMMDescr_t spgemm = nullptr;
    GPUFEM_CUSPARSE_CHECK(sparse.create_csr(
        &da, rows, a.cols, entries, a_ptr.data(),
        const_cast<index_type*>(a.col_idx.data()) + entries_before,
        const_cast<V*>(a.values.data()) + entries_before, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, value_type_of<V>()));
    const V one = 1, zero = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto type = value_type_of<V>();
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    std::int64_t nnz = 0;
    try {
        GPUFEM_CUSPARSE_CHECK(sparse.create_csr(&dc, rows, b_cols, 0, block_ptr, nullptr, nullptr,
                                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                CUSPARSE_INDEX_BASE_ZERO, type));
        GPUFEM_CUSPARSE_CHECK(sparse.spgemm_create_descr(&spgemm));
        std::size_t bytes1 = 0, bytes2 = 0;
        check_spgemm(sparse.spgemm_work_estimation(handle.get(), op, op, &one, da, db, &zero, dc, type,
                                                   alg, spgemm, &bytes1, nullptr),
                     "cusparseSpGEMM_workEstimation");
        Array<char> buffer1(ex, bytes1);
        check_spgemm(sparse.spgemm_work_estimation(handle.get(), op, op, &one, da, db, &zero, dc, type,
                                                   alg, spgemm, &bytes1, buffer1.data()),
                     "cusparseSpGEMM_workEstimation");
        check_spgemm(sparse.spgemm_compute(handle.get(), op, op, &one, da, db, &zero, dc, type, alg,
                                           spgemm, &bytes2, nullptr),
                     "cusparseSpGEMM_compute");
        Array<char> buffer2(ex, bytes2);
        check_spgemm(sparse.spgemm_compute(handle.get(), op, op, &one, da, db, &zero, dc, type, alg,
                                           spgemm, &bytes2, buffer2.data()),
                     "cusparseSpGEMM_compute");
        std::int64_t r = 0, c = 0;
        GPUFEM_CUSPARSE_CHECK(sparse.sp_mat_get_size(dc, &r, &c, &nnz));
        const auto [out_col, out_val] = place(nnz);
        if (out_col) {
            GPUFEM_CUSPARSE_CHECK(sparse.csr_set_pointers(dc, block_ptr, out_col, out_val));
            GPUFEM_CUSPARSE_CHECK(sparse.spgemm_copy(handle.get(), op, op, &one, da, db, &zero,
                                                     dc, type, alg, spgemm));
        }
        exec.synchronize();  // before the buffers go
    } catch (...) {
        sparse.spgemm_destroy_descr(spgemm);
        sparse.destroy_sp_mat(da);
        sparse.destroy_sp_mat(dc);
        throw;
    }
    sparse.spgemm_destroy_descr(spgemm);
    sparse.destroy_sp_mat(da);
    sparse.destroy_sp_mat(dc);
    return nnz;
}

/// Rows [begin, end) of A and the entries of C = A B they make.
struct RowBlock {
    index_type begin, end;
    std::int64_t entries = 0;
};

/// The block size (entries of A) that cuSPARSE's buffers fit in the free memory with B's mean
/// row length.
template <typename V>
std::size_t spgemm_block_from_memory(const Csr<V>& b)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUFEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double b_row = b.rows > 0 ? std::max(1.0, static_cast<double>(b.nnz()) / b.rows) : 1.0;
    const double products = static_cast<double>(free_bytes) / amg_spgemm_bytes_per_product;
    return static_cast<std::size_t>(std::max(1048576.0, products / b_row));
}

/// A's rows (offsets ptr) cut into blocks of at most block_nnz entries (a longer row is a
/// block of its own).
std::vector<RowBlock> row_blocks(const std::vector<index_type>& ptr, index_type rows, std::size_t block_nnz)
{
    std::vector<RowBlock> blocks;
    for (index_type begin = 0; begin < rows;) {
        index_type end = begin + 1;
        while (end < rows && static_cast<std::size_t>(ptr[end + 1] - ptr[begin]) <= block_nnz) ++end;
        blocks.push_back({begin, end});
        begin = end;
    }
    return blocks;
}

/// C's arrays for nnz entries.
template <typename V>
void allocate_product(Csr<V>& c, std::int64_t nnz)
{
    if (nnz > 2147483647LL) throw std::length_error("AMG: a Galerkin product has more than 2^31 - 1 non-zeros");
    c.col_idx = Array<index_type>(c.row_ptr.executor(), static_cast<std::size_t>(nnz));
    c.values = Array<V>(c.row_ptr.executor(), static_cast<std::size_t>(nnz));
}

/// C = A B in one cuSPARSE call, C's arrays made once the size is known; false when cuSPARSE
/// refuses it (then C is untouched but its offsets).
template <typename V>
bool spgemm_in_one_block(const Executor& exec, const SparseHandle& handle, const Csr<V>& a,
                         cusparseSpMatDescr_t db, Csr<V>& c)
{
    try {
        spgemm_block(exec, handle, a, 0, a.rows, 0, static_cast<std::int64_t>(a.nnz()), db, c.cols,
                     c.row_ptr.data(), [&](std::int64_t nnz) {
                         allocate_product(c, nnz);
                         return std::pair<index_type*, V*>{c.col_idx.data(), c.values.data()};
                     });
        return true;
    } catch (const SpgemmRefused&) {
        return false;
    }
}

/// Pass 1 of the product by blocks: each block's entries; a block cuSPARSE refuses is split in
/// two and the halves sized in turn (a single row refused is an error).
template <typename V>
std::vector<RowBlock> sized_blocks(const Executor& exec, const SparseHandle& handle, const Csr<V>& a,
                                   cusparseSpMatDescr_t db, index_type b_cols,
                                   const std::vector<index_type>& ptr, std::vector<RowBlock> pending,
                                   index_type* block_ptr)
{
    const auto nowhere = [](std::int64_t) { return std::pair<index_type*, V*>{nullptr, nullptr}; };
    std::vector<RowBlock> sized;
    std::reverse(pending.begin(), pending.end());  // a stack: the first block on top
    while (!pending.empty()) {
        RowBlock blk = pending.back();
        pending.pop_back();
        try {
            blk.entries = spgemm_block(exec, handle, a, blk.begin, blk.end, ptr[blk.begin],
                                       ptr[blk.end] - ptr[blk.begin], db, b_cols, block_ptr, nowhere);
            sized.push_back(blk);
        } catch (const SpgemmRefused&) {
            if (blk.end - blk.begin == 1) throw;
            const index_type mid = blk.begin + (blk.end - blk.begin) / 2;
            pending.push_back({mid, blk.end});
            pending.push_back({blk.begin, mid});
        }
    }
    return sized;
}

/// C = A B by blocks of rows: each block's size (pass 1, splitting what cuSPARSE refuses),
/// then each block again straight into C (pass 2).
template <typename V>
void spgemm_by_blocks(const Executor& exec, const SparseHandle& handle, const Csr<V>& a,
                      cusparseSpMatDescr_t db, const std::vector<index_type>& ptr,
                      std::vector<RowBlock> blocks, Csr<V>& c)
{
    std::size_t most_rows = 0;
    for (const RowBlock& blk : blocks)
        most_rows = std::max<std::size_t>(most_rows, static_cast<std::size_t>(blk.end - blk.begin));
    Array<index_type> block_ptr(a.executor(), most_rows + 1);
    blocks = sized_blocks(exec, handle, a, db, c.cols, ptr, std::move(blocks), block_ptr.data());
    std::int64_t total = 0;
    for (const RowBlock& blk : blocks) total += blk.entries;
    allocate_product(c, total);
    std::int64_t offset = 0;
    for (const RowBlock& blk : blocks) {
        const index_type rows = blk.end - blk.begin;
        spgemm_block(exec, handle, a, blk.begin, blk.end, ptr[blk.begin], ptr[blk.end] - ptr[blk.begin], db,
                     c.cols, block_ptr.data(), [&](std::int64_t) {
                         return std::pair<index_type*, V*>{c.col_idx.data() + offset, c.values.data() + offset};
                     });
        shift_offsets_kernel<<<grid_for(rows), block_size, 0, stream_of(exec)>>>(
            rows, block_ptr.data(), static_cast<index_type>(offset), c.row_ptr.data() + blk.begin);
        GPUFEM_CUDA_CHECK_LAUNCH();
        offset += blk.entries;
    }
    const index_type last = static_cast<index_type>(total);
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(c.row_ptr.data() + a.rows, &last, sizeof(index_type),
                                      cudaMemcpyHostToDevice, stream_of(exec)));
    exec.synchronize();
}

}  // namespace

template <typename V>
Csr<V> amg_spgemm(const Executor& exec, const Csr<V>& a, const Csr<V>& b, std::size_t block_nnz)
{
    if (a.cols != b.rows) throw std::invalid_argument("amg_spgemm: inner dimensions differ");
    const ExecPtr& ex = a.executor();
    Csr<V> c{a.rows, b.cols, Array<index_type>(ex, static_cast<std::size_t>(a.rows) + 1), {}, {}};
    if (block_nnz == amg_spgemm_block_nnz) {  // gpufem's product, unless a row is too long for it
        if (hash_product::multiply(exec, a, b, c)) return c;
        block_nnz = spgemm_block_from_memory(b);
    }
    const SparseHandle handle(exec);
    cusparseSpMatDescr_t db = csr_descriptor(b);
    try {
        const bool one_block = a.nnz() <= block_nnz;
        if (!one_block || !spgemm_in_one_block(exec, handle, a, db, c)) {
            const std::vector<index_type> ptr = a.row_ptr.to_host();
            // After cuSPARSE refused the whole product, its halves first (not the whole again).
            const std::size_t size = one_block ? std::max<std::size_t>(1, a.nnz() / 2) : block_nnz;
            spgemm_by_blocks(exec, handle, a, db, ptr, row_blocks(ptr, a.rows, size), c);
        }
    } catch (...) {
        gpufem::cuda::cusparse().destroy_sp_mat(db);
        throw;
    }
    gpufem::cuda::cusparse().destroy_sp_mat(db);
    return c;
}

template <typename V>
Csr<V> amg_transpose(const Executor& exec, const Csr<V>& a)
{
    const ExecPtr& ex = a.executor();
    Csr<V> t{a.cols, a.rows, Array<index_type>(ex, static_cast<std::size_t>(a.cols) + 1),
             Array<index_type>(ex, a.nnz()), Array<V>(ex, a.nnz())};
    if (a.nnz() == 0) {
        zero_bytes(exec, t.row_ptr.data(), t.row_ptr.bytes());
        return t;
    }
    radix_transpose::transpose(exec, a, t);
    return t;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    amg_strength, amg_jacobi_operator_pattern, amg_jacobi_operator, amg_prolongator_pattern, amg_prolongator_fill,
    amg_chebyshev_step, amg_start_vector, amg_residual, amg_merge_global_rows, amg_stacked_offsets,
    amg_grid_transfer_entries, amg_dense_matvec, amg_spgemm, amg_transpose, amg_lump_into_prolongator)
GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(amg_join_columns)

}  // namespace gpufem::kernels::cuda
