// CUDA classical coarsening kernels (solver/multigrid/classical_kernels.hpp). The strength and
// PMIS take a thread a row over the row functions of classical_rows.hpp, as the CPU reference;
// PMIS runs its rounds with the same rule as the CPU (an edge's lower-ranked undecided end
// cannot be chosen). The interpolation takes a warp a row (coarse levels have rows of 50-150
// entries whose strong F neighbours' rows a single thread would walk one after the other),
// following the CPU's order of operations so that the weights are the same; each row keeps
// its C points in a small open-addressing table of its own in device memory, rows taken in
// batches that bound that memory.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "solver/multigrid/classical_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

/// In-place exclusive sum of values[0 .. n] (values[n] 0 on entry); returns the total.
/// Synchronises.
template <typename T>
T exclusive_sum(const Executor& exec, T* values, index_type n)
{
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, values, values, n + 1, stream_of(exec)));
    DeviceBuffer temp(exec, temp_bytes);
    GPUFEM_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.as<void>(), temp_bytes, values, values, n + 1, stream_of(exec)));
    T host{};
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, values + n, sizeof(T), cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return host;
}

/// The sum of values[0 .. n) on the host. Synchronises.
index_type device_sum(const Executor& exec, const index_type* values, index_type n)
{
    DeviceBuffer total(exec, sizeof(index_type));
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, values, total.as<index_type>(), n, stream_of(exec)));
    DeviceBuffer temp(exec, temp_bytes);
    GPUFEM_CUDA_CHECK(
        cub::DeviceReduce::Sum(temp.as<void>(), temp_bytes, values, total.as<index_type>(), n, stream_of(exec)));
    index_type host = 0;
    GPUFEM_CUDA_CHECK(
        cudaMemcpyAsync(&host, total.as<index_type>(), sizeof(index_type), cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return host;
}

/// strong[] of every row (classical_strength_row).
template <typename V>
__global__ void strength_kernel(index_type n, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                                const V* __restrict__ val, double theta, std::uint8_t* __restrict__ strong)
{
    const long long i = thread_index();
    if (i < n) classical_strength_row(ptr, col, val, static_cast<index_type>(i), theta, strong);
}

// ---- PMIS ----

/// influenced[j] += 1 for every strong entry (i, j): how many points depend on j.
__global__ void influence_kernel(index_type n, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                                 const std::uint8_t* __restrict__ strong, index_type* __restrict__ influenced)
{
    const long long i = thread_index();
    if (i >= n) return;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
        if (strong[k]) atomicAdd(influenced + col[k], 1);
}

/// The measures and first states from the influence counts, which become the open flags.
__global__ void pmis_init_kernel(index_type n, index_type* influenced_then_open, double* __restrict__ measure,
                                 std::int8_t* __restrict__ state)
{
    const long long i = thread_index();
    if (i >= n) return;
    const index_type influenced = influenced_then_open[i];
    measure[i] = influenced + pmis_fraction(static_cast<index_type>(i));
    state[i] = influenced == 0 ? pmis_fine : pmis_undecided;
    influenced_then_open[i] = influenced != 0;
}

/// beaten[x] = 1 for the lower-ranked end x of every strong edge between undecided points.
__global__ void pmis_beaten_kernel(index_type n, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                                   const std::uint8_t* __restrict__ strong, const double* __restrict__ measure,
                                   const std::int8_t* __restrict__ state, std::uint8_t* __restrict__ beaten)
{
    const long long row = thread_index();
    if (row >= n || state[row] != pmis_undecided) return;
    const auto i = static_cast<index_type>(row);
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        const index_type j = col[k];
        if (!strong[k] || j == i || state[j] != pmis_undecided) continue;
        beaten[pmis_outranks(measure[j], j, measure[i], i) ? i : j] = 1;
    }
}

/// Undecided points that no neighbour beat become C.
__global__ void pmis_choose_kernel(index_type n, const std::uint8_t* __restrict__ beaten,
                                   std::int8_t* __restrict__ state)
{
    const long long i = thread_index();
    if (i < n && state[i] == pmis_undecided && !beaten[i]) state[i] = pmis_coarse;
}

/// Undecided points depending on a C point become F; open[i] = still undecided.
__global__ void pmis_fine_kernel(index_type n, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                                 const std::uint8_t* __restrict__ strong, std::int8_t* __restrict__ state,
                                 index_type* __restrict__ open)
{
    const long long row = thread_index();
    if (row >= n) return;
    const auto i = static_cast<index_type>(row);
    if (state[i] == pmis_undecided)
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
            if (strong[k] && state[col[k]] == pmis_coarse) {
                state[i] = pmis_fine;
                break;
            }
    open[i] = state[i] == pmis_undecided;
}

/// flag[i] = 1 for C points (i < n), flag[n] = 0: the scan's input.
__global__ void coarse_flags_kernel(index_type n, const std::int8_t* __restrict__ state, index_type* __restrict__ flag)
{
    const long long i = thread_index();
    if (i <= n) flag[i] = i < n && state[i] == pmis_coarse;
}

/// coarse_of[i] = the rank of C point i among the C points, -1 for F points.
__global__ void coarse_numbers_kernel(index_type n, const std::int8_t* __restrict__ state,
                                      const index_type* __restrict__ rank, index_type* __restrict__ coarse_of)
{
    const long long i = thread_index();
    if (i < n) coarse_of[i] = state[i] == pmis_coarse ? rank[i] : -1;
}

}  // namespace

template <typename V>
void classical_strength(const Executor& exec, index_type n, const index_type* row_ptr, const index_type* col_idx,
                        const V* values, double theta, std::uint8_t* strong)
{
    if (n == 0) return;
    strength_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, row_ptr, col_idx, values, theta, strong);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

PmisCount pmis_split(const Executor& exec, index_type n, const index_type* row_ptr, const index_type* col_idx,
                     const std::uint8_t* strong, index_type* coarse_of)
{
    const auto rows = static_cast<std::size_t>(n);
    DeviceBuffer counts(exec, sizeof(index_type) * (rows + 1)), measure(exec, sizeof(double) * rows);
    DeviceBuffer state(exec, rows), beaten(exec, rows);
    index_type* per_point = counts.as<index_type>();  // influence counts, then open flags, then C ranks
    std::int8_t* st = state.as<std::int8_t>();
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(per_point, 0, sizeof(index_type) * (rows + 1), stream_of(exec)));
    influence_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, row_ptr, col_idx, strong, per_point);
    GPUFEM_CUDA_CHECK_LAUNCH();
    pmis_init_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, per_point, measure.as<double>(), st);
    GPUFEM_CUDA_CHECK_LAUNCH();
    PmisCount out;
    for (index_type open = device_sum(exec, per_point, n); open > 0; open = device_sum(exec, per_point, n)) {
        ++out.rounds;
        GPUFEM_CUDA_CHECK(cudaMemsetAsync(beaten.as<void>(), 0, rows, stream_of(exec)));
        pmis_beaten_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(
            n, row_ptr, col_idx, strong, measure.as<double>(), st, beaten.as<std::uint8_t>());
        GPUFEM_CUDA_CHECK_LAUNCH();
        pmis_choose_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, beaten.as<std::uint8_t>(), st);
        GPUFEM_CUDA_CHECK_LAUNCH();
        pmis_fine_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, row_ptr, col_idx, strong, st, per_point);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    coarse_flags_kernel<<<grid_for(n + 1), block_size, 0, stream_of(exec)>>>(n, st, per_point);
    GPUFEM_CUDA_CHECK_LAUNCH();
    out.count = exclusive_sum(exec, per_point, n);
    coarse_numbers_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, st, per_point, coarse_of);
    GPUFEM_CUDA_CHECK_LAUNCH();
    return out;
}

namespace {

/// Room for a row's table: a power of two past 1.5 times its bound (0 for an empty bound).
__host__ __device__ inline int slot_bits(index_type bound)
{
    if (bound == 0) return 0;
    int bits = 2;
    while ((index_type{1} << bits) < bound + bound / 2 + 1) ++bits;
    return bits;
}

/// The 4-byte words of a row's scratch: weights (2 a slot), table keys and positions, columns;
/// kept even so every row's weights stay 8-byte aligned.
__host__ __device__ inline long long row_words(index_type bound)
{
    const long long slots = slot_bits(bound) ? 1LL << slot_bits(bound) : 0;
    const long long words = 3LL * bound + 2 * slots;
    return words + (words & 1);
}

/// strong_coarse[m] = the strong C neighbours of m.
template <typename V>
__global__ void strong_coarse_kernel(ClassicalLevel<V> a, index_type n, index_type* __restrict__ strong_coarse)
{
    const long long m = thread_index();
    if (m < n) strong_coarse[m] = classical_strong_coarse(a, static_cast<index_type>(m));
}

/// Per row: its bound, its scratch words and the entries it may keep (C rows: 1); slot n 0.
template <typename V>
__global__ void row_sizes_kernel(ClassicalLevel<V> a, index_type n, const index_type* __restrict__ strong_coarse,
                                 int max_entries, index_type* __restrict__ bound, long long* __restrict__ words,
                                 long long* __restrict__ kept)
{
    const long long i = thread_index();
    if (i > n) return;
    if (i == n) {
        words[n] = kept[n] = 0;
        return;
    }
    const bool fine = a.coarse_of[i] < 0;
    const index_type b = fine ? extended_row_bound(a, strong_coarse, static_cast<index_type>(i)) : 0;
    bound[i] = b;
    words[i] = row_words(b);
    kept[i] = fine ? (max_entries > 0 && b > max_entries ? max_entries : b) : 1;
}

/// For each batch b < batches: the first row whose scratch starts at or past b * batch_words.
__global__ void batch_starts_kernel(const long long* __restrict__ word_at, index_type n, long long batch_words,
                                    index_type batches, index_type* __restrict__ start, long long* __restrict__ start_word)
{
    const long long b = thread_index();
    if (b > batches) return;
    index_type lo = 0, hi = n;
    if (b == batches)
        lo = n;
    else
        while (lo < hi) {
            const index_type mid = lo + (hi - lo) / 2;
            if (word_at[mid] < b * batch_words)
                lo = mid + 1;
            else
                hi = mid;
        }
    start[b] = lo;
    start_word[b] = word_at[lo];
}

/// One warp's F row of the extended+i interpolation: the steps of classical_rows.hpp's
/// extended_row and truncate_extended_row in the same order (so the same weights to the last
/// bit), the work inside each step spread over the lanes. Every lane holds the row's scalars
/// (the same values, computed alike); the row's C points sit in an open-addressing table
/// (key -1: free) of its own in device memory, with their columns and weights in the order the
/// CPU meets them.
template <typename V>
class WarpRow {
public:
    __device__ WarpRow(const ClassicalLevel<V>& a, index_type i, index_type bound, std::uint32_t* words, int lane)
        : a_(a), i_(i), lane_(lane), bits_(slot_bits(bound)), slots_(bits_ ? index_type{1} << bits_ : 0),
          w_(reinterpret_cast<double*>(words)), keys_(reinterpret_cast<index_type*>(words + 2LL * bound)),
          position_(keys_ + slots_), cols_(position_ + slots_)
    {
        for (index_type h = lane_; h < slots_; h += 32) keys_[h] = -1;
        __syncwarp();
    }

    /// C-hat in the CPU's order; returns its size.
    __device__ index_type gather()
    {
        for (index_type k = a_.ptr[i_]; k < a_.ptr[i_ + 1]; ++k) {
            if (!a_.strong[k]) continue;
            const index_type m = a_.col[k];
            if (a_.coarse_of[m] >= 0) {
                add_chunk(lane_ == 0 ? a_.coarse_of[m] : -1);
                continue;
            }
            for (index_type q0 = a_.ptr[m]; q0 < a_.ptr[m + 1]; q0 += 32) {
                const index_type q = q0 + lane_;
                add_chunk(q < a_.ptr[m + 1] && a_.strong[q] ? a_.coarse_of[a_.col[q]] : -1);
            }
        }
        return length_;
    }

    /// The weights -(a_ij + distributed parts) / lumped diagonal; false when it vanishes.
    __device__ bool weigh()
    {
        double diag = 0, a_ii = 0;
        for (index_type k = a_.ptr[i_]; k < a_.ptr[i_ + 1]; ++k) {
            const index_type m = a_.col[k];
            const double a_im = static_cast<double>(a_.val[k]);
            const index_type at = a_.coarse_of[m] >= 0 ? find(a_.coarse_of[m]) : -1;
            if (m == i_)
                a_ii += a_im;
            else if (at >= 0) {
                if (lane_ == 0) w_[at] += a_im;
            } else if (a_.strong[k] && a_.coarse_of[m] < 0)
                diag += distribute(m, a_im);
            else
                diag += a_im;
            __syncwarp();
        }
        diag += a_ii;
        if (!(fabs(diag) > 1e-12 * fabs(a_ii))) return false;
        for (index_type e = lane_; e < length_; e += 32) w_[e] = -w_[e] / diag;
        __syncwarp();
        return true;
    }

    /// Truncates to max_entries (as truncate_extended_row) and writes the kept entries by
    /// column to out; returns how many.
    __device__ index_type write(int max_entries, index_type* out_col, V* out_val)
    {
        const index_type kept = max_entries > 0 && length_ > max_entries ? max_entries : length_;
        if (kept == length_) {
            for (index_type e = lane_; e < length_; e += 32) place(cols_[e], w_[e], length_, cols_, out_col, out_val);
            return kept;
        }
        double positive = 0, negative = 0;  // in position order, as the CPU
        for (index_type e0 = 0; e0 < length_; e0 += 32) {
            const double mine = e0 + lane_ < length_ ? w_[e0 + lane_] : 0.0;
            for (int j = 0; j < 32 && e0 + j < length_; ++j) {
                const double v = __shfl_sync(0xffffffffu, mine, j);
                (v > 0 ? positive : negative) += v;
            }
        }
        index_type* chosen = keys_;  // the table is done with: the chosen positions, best first
        for (index_type s = 0; s < kept; ++s) {
            const index_type best = best_remaining();
            if (lane_ == 0) {
                chosen[s] = best;
                cols_[best] = -1 - cols_[best];  // taken
            }
            __syncwarp();
        }
        double kept_positive = 0, kept_negative = 0;
        for (index_type s = 0; s < kept; ++s) (w_[chosen[s]] > 0 ? kept_positive : kept_negative) += w_[chosen[s]];
        for (index_type s = lane_; s < kept; s += 32) {
            double v = w_[chosen[s]];
            if (v > 0 && kept_positive != 0) v *= positive / kept_positive;
            if (v < 0 && kept_negative != 0) v *= negative / kept_negative;
            const index_type c = -1 - cols_[chosen[s]];
            index_type rank = 0;
            for (index_type t = 0; t < kept; ++t) rank += -1 - cols_[chosen[t]] < c;
            out_col[rank] = c;
            out_val[rank] = static_cast<V>(v);
        }
        return kept;
    }

private:
    __device__ unsigned home(index_type c) const { return (static_cast<unsigned>(c) * 2654435769u) >> (32 - bits_); }
    __device__ index_type find(index_type c) const
    {
        const unsigned mask = (1u << bits_) - 1;
        for (unsigned h = home(c);; h = (h + 1) & mask) {
            if (keys_[h] == c) return position_[h];
            if (keys_[h] < 0) return -1;
        }
    }
    /// Adds each lane's C point c (-1: none) not yet in the row, in lane order after those
    /// before (a chunk's points are distinct: one row's columns).
    __device__ void add_chunk(index_type c)
    {
        const bool fresh = c >= 0 && find(c) < 0;
        const unsigned mask = __ballot_sync(0xffffffffu, fresh);
        if (fresh) {
            const index_type p = length_ + __popc(mask & ((1u << lane_) - 1));
            const unsigned wrap = (1u << bits_) - 1;
            unsigned h = home(c);
            while (atomicCAS(keys_ + h, -1, c) != -1) h = (h + 1) & wrap;
            position_[h] = p;
            cols_[p] = c;
            w_[p] = 0.0;
        }
        length_ += __popc(mask);
        __syncwarp();
    }
    /// distribute() of classical_rows.hpp: m's couplings to C-hat summed in q order on every
    /// lane (shuffled), then each lane's share added to its own column.
    __device__ double distribute(index_type m, double a_im)
    {
        const double sign = classical_sign(a_, m);
        const index_type at_i = classical_find(a_.ptr, a_.col, m, i_);
        const double to_i = at_i >= 0 && sign * static_cast<double>(a_.val[at_i]) < 0
                                ? static_cast<double>(a_.val[at_i]) : 0.0;
        double total = to_i;
        for (index_type q0 = a_.ptr[m]; q0 < a_.ptr[m + 1]; q0 += 32) {
            index_type at;
            const double mine = share(q0 + lane_, m, sign, at);
            for (int j = 0; j < 32 && q0 + j < a_.ptr[m + 1]; ++j) {
                const index_type at_j = __shfl_sync(0xffffffffu, at, j);
                const double v = __shfl_sync(0xffffffffu, mine, j);
                if (at_j >= 0) total += v;
            }
        }
        if (total == 0) return a_im;
        for (index_type q0 = a_.ptr[m]; q0 < a_.ptr[m + 1]; q0 += 32) {
            index_type at;
            const double mine = share(q0 + lane_, m, sign, at);
            if (at >= 0) w_[at] += a_im * mine / total;
        }
        __syncwarp();
        return a_im * to_i / total;
    }
    /// Entry q of m's row: its position in the row (at, -1 when not in C-hat) and its value
    /// when of the opposite sign to m's diagonal (else 0).
    __device__ double share(index_type q, index_type m, double sign, index_type& at) const
    {
        at = -1;
        if (q >= a_.ptr[m + 1] || a_.coarse_of[a_.col[q]] < 0) return 0.0;
        at = find(a_.coarse_of[a_.col[q]]);
        const double v = static_cast<double>(a_.val[q]);
        return sign * v < 0 ? v : 0.0;
    }
    /// The position of the largest |w| not yet taken (ties: the smaller column), on every lane.
    __device__ index_type best_remaining() const
    {
        double bw = -1;
        index_type bc = 0, be = -1;
        for (index_type e = lane_; e < length_; e += 32) {
            const index_type c = cols_[e];
            if (c < 0) continue;
            const double v = fabs(w_[e]);
            if (be < 0 || v > bw || (v == bw && c < bc)) bw = v, bc = c, be = e;
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            const double ow = __shfl_down_sync(0xffffffffu, bw, offset);
            const index_type oc = __shfl_down_sync(0xffffffffu, bc, offset);
            const index_type oe = __shfl_down_sync(0xffffffffu, be, offset);
            if (oe >= 0 && (be < 0 || ow > bw || (ow == bw && oc < bc))) bw = ow, bc = oc, be = oe;
        }
        return __shfl_sync(0xffffffffu, be, 0);
    }
    /// Writes entry (c, v) at its rank by column among the n columns of cols.
    __device__ static void place(index_type c, double v, index_type n, const index_type* cols, index_type* out_col,
                                 V* out_val)
    {
        index_type rank = 0;
        for (index_type t = 0; t < n; ++t) rank += cols[t] < c;
        out_col[rank] = c;
        out_val[rank] = static_cast<V>(v);
    }

    const ClassicalLevel<V>& a_;
    index_type i_;
    int lane_;
    int bits_;
    index_type slots_;
    double* w_;
    index_type* keys_;
    index_type* position_;
    index_type* cols_;
    index_type length_ = 0;
};

/// The rows [begin, end), a warp each: an F row built in its scratch (word_at[i] - base words
/// into scratch), truncated and written to its staging place; length[i] its kept entries.
template <typename V>
__global__ void extended_rows_kernel(ClassicalLevel<V> a, index_type begin, index_type end,
                                     const index_type* __restrict__ bound, const long long* __restrict__ word_at,
                                     long long base, std::uint32_t* __restrict__ scratch,
                                     const long long* __restrict__ staged_at, int max_entries,
                                     index_type* __restrict__ staged_col, V* __restrict__ staged_val,
                                     index_type* __restrict__ length)
{
    const long long row = begin + warp_index();
    if (row >= end) return;
    const auto i = static_cast<index_type>(row);
    const int lane = lane_index();
    index_type* out_col = staged_col + staged_at[i];
    V* out_val = staged_val + staged_at[i];
    if (a.coarse_of[i] >= 0) {
        if (lane == 0) out_col[0] = a.coarse_of[i], out_val[0] = V(1), length[i] = 1;
        return;
    }
    WarpRow<V> row_of_i(a, i, bound[i], scratch + (word_at[i] - base), lane);
    const index_type kept =
        row_of_i.gather() > 0 && row_of_i.weigh() ? row_of_i.write(max_entries, out_col, out_val) : 0;
    if (lane == 0) length[i] = kept;
}

/// offset[i] = length[i] for i < n, offset[n] = 0 (for the scan of the row lengths).
__global__ void copy_lengths_kernel(index_type n, const index_type* __restrict__ length, long long* __restrict__ offset)
{
    const long long i = thread_index();
    if (i <= n) offset[i] = i < n ? length[i] : 0;
}

/// The interpolation's row offsets from the 64-bit scan of its row lengths.
__global__ void row_offsets_kernel(index_type n, const long long* __restrict__ offset, index_type* __restrict__ row_ptr)
{
    const long long i = thread_index();
    if (i <= n) row_ptr[i] = static_cast<index_type>(offset[i]);
}

/// Copies each row's kept entries from its staging place to its place in the matrix.
template <typename V>
__global__ void compact_rows_kernel(index_type n, const long long* __restrict__ staged_at,
                                    const index_type* __restrict__ staged_col, const V* __restrict__ staged_val,
                                    const index_type* __restrict__ row_ptr, index_type* __restrict__ col,
                                    V* __restrict__ val)
{
    const long long i = thread_index();
    if (i >= n) return;
    for (index_type e = 0; e < row_ptr[i + 1] - row_ptr[i]; ++e) {
        col[row_ptr[i] + e] = staged_col[staged_at[i] + e];
        val[row_ptr[i] + e] = staged_val[staged_at[i] + e];
    }
}

/// Words of row scratch held at once at most (1 GiB); a level is built in about four batches
/// of rows below that (so every level takes the batched path), at least 4096 words each.
constexpr long long max_batch_words = 1LL << 28;

/// Builds every row of the interpolation into the staging arrays, batch by batch (word_at:
/// each row's first scratch word, total_words in all); length[i] its kept entries.
template <typename V>
void build_rows(const Executor& exec, const ClassicalLevel<V>& a, index_type n, const index_type* bound,
                const long long* word_at, long long total_words, const long long* staged_at, int max_entries,
                index_type* staged_col, V* staged_val, index_type* length)
{
    const long long batch_words = std::min(max_batch_words, std::max(4096LL, (total_words + 3) / 4));
    const auto batches = static_cast<index_type>(std::max(1LL, (total_words + batch_words - 1) / batch_words));
    DeviceBuffer start(exec, sizeof(index_type) * (batches + 1)), start_word(exec, sizeof(long long) * (batches + 1));
    batch_starts_kernel<<<grid_for(batches + 1), block_size, 0, stream_of(exec)>>>(
        word_at, n, batch_words, batches, start.as<index_type>(), start_word.as<long long>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::vector<index_type> first(static_cast<std::size_t>(batches) + 1);
    std::vector<long long> first_word(first.size());
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(first.data(), start.as<index_type>(), sizeof(index_type) * first.size(),
                                      cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(first_word.data(), start_word.as<long long>(), sizeof(long long) * first.size(),
                                      cudaMemcpyDeviceToHost, stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    long long largest_batch = 0;  // words
    for (index_type b = 0; b < batches; ++b) largest_batch = std::max(largest_batch, first_word[b + 1] - first_word[b]);
    DeviceBuffer scratch(exec, sizeof(std::uint32_t) * static_cast<std::size_t>(std::max(largest_batch, 2LL)));
    for (index_type b = 0; b < batches; ++b) {
        if (first[b + 1] == first[b]) continue;
        extended_rows_kernel<<<warp_grid_for(first[b + 1] - first[b]), block_size, 0, stream_of(exec)>>>(
            a, first[b], first[b + 1], bound, word_at, first_word[b], scratch.as<std::uint32_t>(), staged_at,
            max_entries, staged_col, staged_val, length);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
}

}  // namespace

template <typename V>
Csr<V> classical_interpolation(const Executor& exec, const Csr<V>& matrix, const std::uint8_t* strong,
                               const index_type* coarse_of, index_type coarse_count, int max_entries)
{
    const index_type n = matrix.rows;
    const auto rows = static_cast<std::size_t>(n);
    const ClassicalLevel<V> a{matrix.row_ptr.data(), matrix.col_idx.data(), matrix.values.data(), strong,
                              coarse_of};
    const ExecPtr& matrix_exec = matrix.executor();
    if (n == 0)
        return Csr<V>{0, coarse_count, Array<index_type>::from_host(matrix_exec, std::vector<index_type>{0}),
                      Array<index_type>(matrix_exec, 0), Array<V>(matrix_exec, 0)};
    DeviceBuffer strong_coarse(exec, sizeof(index_type) * rows), bound(exec, sizeof(index_type) * rows);
    DeviceBuffer word_at(exec, sizeof(long long) * (rows + 1)), staged_at(exec, sizeof(long long) * (rows + 1));
    DeviceBuffer length(exec, sizeof(index_type) * rows);
    strong_coarse_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(a, n, strong_coarse.as<index_type>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    row_sizes_kernel<<<grid_for(n + 1), block_size, 0, stream_of(exec)>>>(
        a, n, strong_coarse.as<index_type>(), max_entries, bound.as<index_type>(), word_at.as<long long>(),
        staged_at.as<long long>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    const long long total_words = exclusive_sum(exec, word_at.as<long long>(), n);
    const long long staged = exclusive_sum(exec, staged_at.as<long long>(), n);
    DeviceBuffer staged_col(exec, sizeof(index_type) * static_cast<std::size_t>(std::max(staged, 1LL)));
    DeviceBuffer staged_val(exec, sizeof(V) * static_cast<std::size_t>(std::max(staged, 1LL)));
    build_rows(exec, a, n, bound.as<index_type>(), word_at.as<long long>(), total_words, staged_at.as<long long>(),
               max_entries,
               staged_col.as<index_type>(), staged_val.as<V>(), length.as<index_type>());
    // The row offsets: the kept lengths summed in 64 bits (past 2^31 - 1 entries is refused).
    DeviceBuffer offset(exec, sizeof(long long) * (rows + 1));
    long long* off = offset.as<long long>();
    copy_lengths_kernel<<<grid_for(n + 1), block_size, 0, stream_of(exec)>>>(n, length.as<index_type>(), off);
    GPUFEM_CUDA_CHECK_LAUNCH();
    const long long entries = exclusive_sum(exec, off, n);
    if (entries > std::numeric_limits<index_type>::max())
        throw std::invalid_argument("classical AMG: an interpolation of more than 2^31 - 1 entries (lower "
                                    "solver.amg.interpolation_entries)");
    Csr<V> p{n, coarse_count, Array<index_type>(matrix_exec, rows + 1), Array<index_type>(matrix_exec, static_cast<std::size_t>(entries)),
             Array<V>(matrix_exec, static_cast<std::size_t>(entries))};
    row_offsets_kernel<<<grid_for(n + 1), block_size, 0, stream_of(exec)>>>(n, off, p.row_ptr.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    compact_rows_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(
        n, staged_at.as<long long>(), staged_col.as<index_type>(), staged_val.as<V>(), p.row_ptr.data(),
        p.col_idx.data(), p.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return p;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(classical_strength, classical_interpolation)

}  // namespace gpufem::kernels::cuda
