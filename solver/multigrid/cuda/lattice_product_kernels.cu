// CUDA lattice product (solver/multigrid/lattice_product_kernels.hpp): one warp per row of C.
// The warp's lanes form groups of `group` lanes; group g takes A's entries g, g + groups, ...
// in order, its lanes the entries of the named row of B (distinct columns: no two lanes of a
// group meet in a slot; a longer row in several steps), adding into the group's own window of
// sums in shared memory; the groups' windows are then added in group order, so the sums are
// the same every run. A count pass (the slots a row touches), CUB's scan (the total), then a
// fill pass writing each row's columns by rank (sorted without a sort). The lattice points are
// read packed in 32 bits where the lattice has them (half the integer work of each lookup, which
// is what these passes are bound by), else in 64.
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "solver/multigrid/lattice_product_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int warps_per_block = 8;

__global__ void lattice_points_kernel(LatticeNumbering numbering, index_type count, std::uint64_t* points)
{
    const long long g = thread_index();
    if (g >= count) return;
    long long p[3];
    numbering.point(static_cast<index_type>(g), p);
    points[g] = packed_point(p);
}

__global__ void narrow_points_kernel(const std::uint64_t* __restrict__ points, index_type count,
                                     std::uint32_t* __restrict__ narrow)
{
    const long long g = thread_index();
    if (g < count) narrow[g] = narrow_point(points[g]);
}

/// The centre of row r's window (warp-uniform); false when B's row r is empty.
template <typename P>
__device__ bool warp_centre(index_type r, WindowCentre centre, index_type first, const index_type* b_ptr,
                            const index_type* b_col, const P* points, P& out)
{
    if (centre == WindowCentre::row_point) {
        out = points[first + r];
        return true;
    }
    const int lane = threadIdx.x & 31;
    const index_type begin = b_ptr[r], end = b_ptr[r + 1];
    if (begin == end) return false;
    unsigned low[3] = {~0u, ~0u, ~0u};
    for (index_type q = begin + lane; q < end; q += 32)
        for (int a = 0; a < 3; ++a) low[a] = min(low[a], static_cast<unsigned>(point_axis(points[b_col[q]], a)));
    long long p[3];
    for (int a = 0; a < 3; ++a) p[a] = __reduce_min_sync(0xffffffffu, low[a]);
    out = pack_point<P>(p);
    return true;
}

/// The warp's pass over row r: each group's lanes over the rows of B that its entries of A
/// name; with Values, sums[g][slot] += a_ik b_kj and keys[slot] = j. Returns the row's mask
/// of touched slots (warp-uniform); *outside = 1 when a column leaves the window (outside
/// null: the count pass found none). Ghosts: A's rows are two blocks side by side
/// (WindowRows); without, one block read through plain restricted pointers.
template <typename V, bool Values, bool Ghosts, typename VA, typename O, typename P>
__device__ unsigned warp_window_row(index_type r, int group, const WindowRows<VA, O>& a,
                                    const index_type* __restrict__ b_ptr, const index_type* __restrict__ b_col,
                                    const V* __restrict__ b_val, const P* __restrict__ points, int dim, P centre,
                                    V (*sums)[lattice_window_slots], index_type* keys, int* outside)
{
    const int lane = threadIdx.x & 31, g = lane / group, member = lane % group, groups = 32 / group;
    unsigned mask = 0;
    bool fits = true;
    const auto visit = [&](index_type k, V a_ke) {  // one entry a_ik of the group's
        for (index_type q = b_ptr[k] + member; q < b_ptr[k + 1]; q += group) {
            const index_type j = b_col[q];
            const int slot = window_slot(points[j], centre, dim);
            if (slot < 0) {
                fits = false;
                continue;
            }
            mask |= 1u << slot;
            if constexpr (Values) {
                keys[slot] = j;
                sums[g][slot] += a_ke * b_val[q];
            }
        }
        if constexpr (Values) __syncwarp((~0u >> (32 - group)) << (g * group));
    };
    if constexpr (Ghosts) {
        const typename WindowRows<VA, O>::Row w = a.row(r);
        for (long long e = g; e < w.count; e += groups)
            visit(a.column(w, e), Values ? static_cast<V>(a.value(w, e)) : V(0));
    } else {
        const O* __restrict__ a_ptr = a.ptr;
        const index_type* __restrict__ a_col = a.col;
        const VA* __restrict__ a_val = a.val;
        for (O p = a_ptr[r] + g; p < a_ptr[r + 1]; p += groups) visit(a_col[p], Values ? static_cast<V>(a_val[p]) : V(0));
    }
    if (outside && !__all_sync(0xffffffffu, fits)) *outside = 1;
    return __reduce_or_sync(0xffffffffu, mask);
}

template <typename VA, typename O, bool Ghosts, typename P>
__global__ void __launch_bounds__(warps_per_block * 32)
    window_count_kernel(index_type rows, int group, WindowRows<VA, O> a, const index_type* __restrict__ b_ptr,
                        const index_type* __restrict__ b_col, const P* __restrict__ points, int dim,
                        WindowCentre centre, index_type first, index_type* __restrict__ counts,
                        int* __restrict__ outside)
{
    const index_type r = static_cast<index_type>(blockIdx.x) * warps_per_block + static_cast<index_type>(threadIdx.x >> 5);
    if (r >= rows) return;  // warp-uniform
    P middle = 0;
    unsigned mask = 0;
    if (warp_centre(r, centre, first, b_ptr, b_col, points, middle))
        mask = warp_window_row<VA, false, Ghosts>(r, group, a, b_ptr, b_col, static_cast<const VA*>(nullptr), points, dim,
                                         middle, nullptr, nullptr, outside);
    else if (a.row(r).count > 0)
        *outside = 1;
    // The total comes from the scan of the counts (no atomic per row on one address: the
    // rows would queue at it).
    if ((threadIdx.x & 31) == 0) counts[r] = __popc(mask);
}

template <typename VA, typename V, typename O, bool Ghosts, typename P>
__global__ void __launch_bounds__(warps_per_block * 32)
    window_fill_kernel(index_type rows, int group, WindowRows<VA, O> a,
                       const index_type* __restrict__ b_ptr, const index_type* __restrict__ b_col,
                       const V* __restrict__ b_val, const P* __restrict__ points, int dim,
                       WindowCentre centre, index_type first, const index_type* __restrict__ c_ptr,
                       index_type* __restrict__ c_col, V* __restrict__ c_val)
{
    // Per warp: its groups' windows of sums (dynamic: as many as the groups), then its keys.
    extern __shared__ unsigned char shared[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, groups = 32 / group;
    const index_type r = static_cast<index_type>(blockIdx.x) * warps_per_block + warp;
    if (r >= rows) return;  // warp-uniform
    V(*sums)[lattice_window_slots] =
        reinterpret_cast<V(*)[lattice_window_slots]>(shared) + static_cast<std::size_t>(warp) * groups;
    index_type* keys = reinterpret_cast<index_type*>(reinterpret_cast<V*>(shared) + static_cast<std::size_t>(warps_per_block) * groups * lattice_window_slots) +
                       warp * lattice_window_slots;
    for (int s = lane; s < groups * lattice_window_slots; s += 32) sums[s / lattice_window_slots][s % lattice_window_slots] = V(0);
    __syncwarp();
    P middle = 0;
    if (!warp_centre(r, centre, first, b_ptr, b_col, points, middle)) return;
    const unsigned mask =
        warp_window_row<V, true, Ghosts>(r, group, a, b_ptr, b_col, b_val, points, dim, middle, sums, keys, nullptr);
    __syncwarp();
    // A column's rank among the row's: its slot's among the touched slots when the columns grow
    // with the slots (a grid numbered x fastest: every row of one process's levels), else
    // counted.
    const bool mine = lane < lattice_window_slots && (mask >> lane & 1u);
    const index_type key = mine ? keys[lane] : 0;
    const unsigned later = mine ? mask & ~((2u << lane) - 1u) : 0u;
    const bool ordered = __all_sync(0xffffffffu, later == 0 || keys[__ffs(later) - 1] > key);
    if (mine) {
        V total = sums[0][lane];
        for (int g = 1; g < groups; ++g) total += sums[g][lane];
        int rank = __popc(mask & ((1u << lane) - 1u));
        if (!ordered) {
            rank = 0;
            for (int s = 0; s < lattice_window_slots; ++s) rank += (mask >> s & 1u) && keys[s] < key;
        }
        c_col[c_ptr[r] + rank] = key;
        c_val[c_ptr[r] + rank] = total;
    }
}

/// Lanes per group, for A P (P's rows of up to 8 entries) and R (A P) (rows of up to 27)
/// alike: short steps, many rows of A in flight. Measured with the 32-bit points on an H100
/// against 2, 8 and 16 lanes: on the 64M-unknown cube's first level 4 and 4 took 154 ms, 4
/// and 8 161 ms, 8 and 8 181 ms.
constexpr int lanes_per_group = 4;

}  // namespace

void amg_lattice_points(const Executor& exec, LatticeNumbering numbering, index_type count, std::uint64_t* points)
{
    if (count == 0) return;
    lattice_points_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(numbering, count, points);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

namespace {

/// The product with the points packed in P (std::uint32_t or std::uint64_t): count, scan, one
/// wait for the total, fill.
template <typename VA, typename V, typename O, typename P>
bool lattice_product_on(const Executor& exec, const Csr<VA, O>& a, const Csr<VA>* ghost, const Csr<V>& b,
                        const P* points, int dim, WindowCentre centre, index_type first, Csr<V>& c)
{
    const WindowRows<VA, O> a_rows = window_rows(a, ghost);
    const cudaStream_t stream = stream_of(exec);
    const index_type rows = a.rows;
    index_type* ptr = c.row_ptr.data();
    const int group = lanes_per_group;
    DeviceBuffer outside(exec, sizeof(int));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(outside.as<void>(), 0, sizeof(int), stream));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(ptr + rows, 0, sizeof(index_type), stream));
    const auto blocks = static_cast<unsigned>((static_cast<long long>(rows) + warps_per_block - 1) / warps_per_block);
    if (rows > 0) {
        const auto count = ghost ? window_count_kernel<VA, O, true, P> : window_count_kernel<VA, O, false, P>;
        count<<<blocks, warps_per_block * 32, 0, stream>>>(rows, group, a_rows, b.row_ptr.data(), b.col_idx.data(),
                                                         points, dim, centre, first, ptr, outside.as<int>());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    // Past 2^31 - 1 entries in all the scan would wrap: below that many rows times the
    // window's slots it cannot, above it the counts are summed in 64 bits first.
    DeviceBuffer wide_total(exec, sizeof(long long));
    std::size_t temp_bytes = 0, sum_bytes = 0;
    const bool may_overflow = static_cast<long long>(rows) * lattice_window_slots > 2147483647LL;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, ptr, ptr, rows + 1, stream));
    if (may_overflow)
        GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, ptr, wide_total.as<long long>(), rows, stream));
    {
        DeviceBuffer temp(exec, std::max(temp_bytes, sum_bytes));
        if (may_overflow)
            GPUFEM_CUDA_CHECK(
                cub::DeviceReduce::Sum(temp.as<void>(), sum_bytes, ptr, wide_total.as<long long>(), rows, stream));
        GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.as<void>(), temp_bytes, ptr, ptr, rows + 1, stream));
    }
    struct {
        int outside = 0;
        index_type total = 0;
        long long wide = 0;
    } host;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host.outside, outside.as<void>(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host.total, ptr + rows, sizeof(index_type), cudaMemcpyDeviceToHost, stream));
    if (may_overflow)
        GPUFEM_CUDA_CHECK(
            cudaMemcpyAsync(&host.wide, wide_total.as<void>(), sizeof(long long), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host.outside) return false;
    if (may_overflow && host.wide > 2147483647LL)
        throw std::length_error("AMG: a Galerkin product has more than 2^31 - 1 non-zeros");
    const index_type total = host.total;
    const ExecPtr& ex = a.executor();
    c.col_idx = Array<index_type>(ex, static_cast<std::size_t>(total));
    c.values = Array<V>(ex, static_cast<std::size_t>(total));
    if (rows > 0) {
        const std::size_t shared = warps_per_block * lattice_window_slots * ((32 / group) * sizeof(V) + sizeof(index_type));
        const auto fill = ghost ? window_fill_kernel<VA, V, O, true, P> : window_fill_kernel<VA, V, O, false, P>;
        fill<<<blocks, warps_per_block * 32, shared, stream>>>(
            rows, group, a_rows, b.row_ptr.data(), b.col_idx.data(), b.values.data(), points, dim, centre, first, ptr,
            c.col_idx.data(), c.values.data());
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    return true;
}

}  // namespace

void amg_narrow_lattice_points(const Executor& exec, const std::uint64_t* points, index_type count, std::uint32_t* narrow)
{
    if (count == 0) return;
    narrow_points_kernel<<<grid_for(count), block_size, 0, stream_of(exec)>>>(points, count, narrow);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename VA, typename V, typename O>
bool amg_lattice_product(const Executor& exec, const Csr<VA, O>& a, const Csr<VA>* ghost, const Csr<V>& b,
                         const std::uint64_t* points, const std::uint32_t* narrow, int dim, WindowCentre centre,
                         index_type first, Csr<V>& c)
{
    return narrow ? lattice_product_on(exec, a, ghost, b, narrow, dim, centre, first, c)
                  : lattice_product_on(exec, a, ghost, b, points, dim, centre, first, c);
}

GPUFEM_INSTANTIATE_LATTICE_PRODUCT()

}  // namespace gpufem::kernels::cuda
