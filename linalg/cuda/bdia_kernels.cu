// Device bDIA (linalg/bdia.hpp): the slabs' bands, fill, and the SpMV with each block's x
// windows staged in shared memory (Wang, Ren & Tian 2013, §3.2, §3.4), one block of bdia_slab
// threads per slab.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "linalg/bdia.hpp"
#include "linalg/cuda/bdia_band_sum.cuh"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/fused_product.cuh"

namespace gpufem::kernels::cuda {
namespace {

constexpr int slab = bdia_slab;
/// Slots of a slab's diagonal set: at most bdia_listed_diagonals + slab keys go in (threads
/// stop inserting once the count passes the limit), so probing always finds an empty slot.
constexpr int hash_slots = 2048;
constexpr int hash_bits = 11;
static_assert(hash_slots == 1 << hash_bits && hash_slots > bdia_listed_diagonals + slab);
constexpr index_type empty_slot = INT_MIN;

/// A slab's distinct diagonals, in shared memory (open addressing, linear probing), and
/// the envelope of its rows.
struct SlabDiagonals {
    index_type slot[hash_slots];
    int distinct;     ///< keys inserted
    index_type low;   ///< lowest diagonal of the slab (INT_MAX: no entries)
    index_type high;  ///< highest diagonal
    int longest_row;  ///< most entries a row of the slab has
    /// More distinct diagonals than the limit: the slab is one band from low to high.
    __device__ bool overflow() const { return distinct > bdia_listed_diagonals; }
};

__device__ unsigned hash_of(index_type d)
{
    return (static_cast<unsigned>(d) * 2654435761u) >> (32 - hash_bits);
}

/// Inserts d; true when it was not there before.
__device__ bool insert(SlabDiagonals& set, index_type d)
{
    for (unsigned p = hash_of(d);; p = (p + 1) & (hash_slots - 1)) {
        index_type seen = *static_cast<volatile index_type*>(&set.slot[p]);
        if (seen == d) return false;
        if (seen == empty_slot) {
            seen = atomicCAS(&set.slot[p], empty_slot, d);
            if (seen == empty_slot) return true;
            if (seen == d) return false;
        }
    }
}

__device__ bool contains(const SlabDiagonals& set, index_type d)
{
    for (unsigned p = hash_of(d);; p = (p + 1) & (hash_slots - 1)) {
        const index_type seen = set.slot[p];
        if (seen == d) return true;
        if (seen == empty_slot) return false;
    }
}

/// Distance to the nearest diagonal below d in the set within gap + 1, or 0 (d starts a band).
__device__ index_type predecessor_distance(const SlabDiagonals& set, index_type d, index_type gap)
{
    for (index_type q = 1; q <= gap + 1; ++q)
        if (contains(set, d - q)) return q;
    return 0;
}

/// Fills the set with the diagonals of slab s's rows and its envelope; ends with a barrier.
template <typename Reduce>
__device__ void collect_diagonals(SlabDiagonals& set, typename Reduce::TempStorage& temp, index_type rows,
                                  const index_type* __restrict__ ptr, const index_type* __restrict__ col)
{
    for (int j = threadIdx.x; j < hash_slots; j += slab) set.slot[j] = empty_slot;
    if (threadIdx.x == 0) set.distinct = set.longest_row = 0;
    __syncthreads();
    const index_type i = blockIdx.x * slab + static_cast<index_type>(threadIdx.x);
    index_type lo = INT_MAX, hi = INT_MIN;
    if (i < rows && ptr[i] < ptr[i + 1]) {
        atomicMax(&set.longest_row, ptr[i + 1] - ptr[i]);
        lo = col[ptr[i]] - i;  // columns are sorted
        hi = col[ptr[i + 1] - 1] - i;
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            if (*static_cast<volatile int*>(&set.distinct) > bdia_listed_diagonals) break;
            if (insert(set, col[k] - i)) atomicAdd(&set.distinct, 1);
        }
    }
    const index_type block_lo = Reduce(temp).Reduce(lo, [](index_type a, index_type b) { return a < b ? a : b; });
    __syncthreads();  // temp is reused
    const index_type block_hi = Reduce(temp).Reduce(hi, [](index_type a, index_type b) { return a > b ? a : b; });
    if (threadIdx.x == 0) {
        set.low = block_lo;
        set.high = block_hi;
    }
    __syncthreads();
}

/// One block per slab: its bands and stored diagonals (for the scans) and the stats.
__global__ void __launch_bounds__(slab)
    slab_count_kernel(index_type rows, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                      index_type gap, index_type* __restrict__ band_count, std::int64_t* __restrict__ slab_size,
                      index_type* __restrict__ stats)
{
    using Reduce = cub::BlockReduce<index_type, slab>;
    __shared__ typename Reduce::TempStorage temp;
    __shared__ SlabDiagonals set;
    collect_diagonals<Reduce>(set, temp, rows, ptr, col);
    index_type bands = 0, stored = 0;
    if (!set.overflow())
        for (int j = threadIdx.x; j < hash_slots; j += slab) {
            const index_type d = set.slot[j];
            if (d == empty_slot) continue;
            const index_type q = predecessor_distance(set, d, gap);
            bands += q == 0 ? 1 : 0;
            stored += q == 0 ? 1 : q;  // d and the empty diagonals before it in its band
        }
    bands = Reduce(temp).Sum(bands);
    __syncthreads();
    stored = Reduce(temp).Sum(stored);
    if (threadIdx.x != 0) return;
    const index_type s = blockIdx.x;
    atomicMax(stats + 4, set.longest_row);
    if (set.low > set.high) {  // only empty rows
        band_count[s] = 0;
        slab_size[s] = 0;
        return;
    }
    if (set.overflow()) {
        bands = 1;
        stored = set.high - set.low + 1;
    }
    band_count[s] = bands;
    slab_size[s] = static_cast<std::int64_t>(stored) * slab;
    atomicMax(stats, max(abs(set.low), abs(set.high)));
    atomicMax(stats + 1, stored);
    atomicMax(stats + 2, bands);
    atomicMax(stats + 3, bands * (slab - 1) + stored);
}

/// One block per slab: the bands in increasing order at band_ptr[s].
__global__ void __launch_bounds__(slab)
    slab_list_kernel(index_type rows, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                     index_type gap, const index_type* __restrict__ band_ptr, index_type* __restrict__ band_offset,
                     index_type* __restrict__ band_width)
{
    using Reduce = cub::BlockReduce<index_type, slab>;
    __shared__ typename Reduce::TempStorage temp;
    __shared__ SlabDiagonals set;
    __shared__ index_type start[bdia_listed_diagonals], width[bdia_listed_diagonals];
    __shared__ int starts;
    if (threadIdx.x == 0) starts = 0;
    collect_diagonals<Reduce>(set, temp, rows, ptr, col);
    const index_type first = band_ptr[blockIdx.x];
    if (set.low > set.high) return;
    if (set.overflow()) {
        if (threadIdx.x == 0) {
            band_offset[first] = set.low;
            band_width[first] = set.high - set.low + 1;
        }
        return;
    }
    for (int j = threadIdx.x; j < hash_slots; j += slab) {
        const index_type d = set.slot[j];
        if (d == empty_slot || predecessor_distance(set, d, gap) != 0) continue;
        index_type end = d;  // follow the band up through gaps of at most gap
        for (bool more = true; more;) {
            more = false;
            for (index_type q = 1; q <= gap + 1 && !more; ++q)
                if (contains(set, end + q)) {
                    end += q;
                    more = true;
                }
        }
        const int n = atomicAdd(&starts, 1);
        start[n] = d;
        width[n] = end - d + 1;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < starts; j += slab) {
        int rank = 0;
        for (int m = 0; m < starts; ++m) rank += start[m] < start[j] ? 1 : 0;
        band_offset[first + rank] = start[j];
        band_width[first + rank] = width[j];
    }
}

/// One block per slab; one thread per row scatters its entries (diagonals in increasing order,
/// so the thread walks the slab's bands alongside).
template <typename V>
__global__ void __launch_bounds__(slab)
    fill_kernel(index_type rows, const index_type* __restrict__ ptr, const index_type* __restrict__ col,
                const V* __restrict__ val, const std::int64_t* __restrict__ slab_ptr,
                const index_type* __restrict__ band_ptr, const index_type* __restrict__ band_offset,
                const index_type* __restrict__ band_width, V* __restrict__ values)
{
    const index_type i = blockIdx.x * slab + static_cast<index_type>(threadIdx.x);
    if (i >= rows) return;
    const index_type s = blockIdx.x;
    V* stored = values + slab_ptr[s] + threadIdx.x;
    const index_type last = band_ptr[s + 1];
    index_type band = band_ptr[s];
    std::int64_t k_band = 0;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        const index_type d = col[k] - i;
        while (band + 1 < last && d >= band_offset[band + 1]) k_band += band_width[band++];
        stored[(k_band + d - band_offset[band]) * slab] = val[k];
    }
}

/// y = alpha A x + beta y, one block per slab, one thread per row. Thread t of slab s computes
/// row r0 + t from the slab's bands (column-major: consecutive threads read consecutive
/// values); band b reads x[r0 + offset_b + t + k], k < width_b, so the block's window of that
/// band starts at r0 + offset_b and holds slab + width_b - 1 values. When the slab's windows
/// together fit in window_capacity values of (dynamic) shared memory and its bands are wide
/// enough to reuse them (bdia_staged_band_width) they are loaded once,
/// coalesced, with zeros outside 0 .. rows-1 (the virtual padding of Wang, Ren & Tian 2013,
/// §3.2), and thread t reads window_b[t + k]: consecutive threads hit consecutive banks.
/// Otherwise x is read from global memory through the read-only cache. The branch is uniform
/// in the block (it depends on the slab only), so the barrier is safe.
template <typename V, Fused F>
__global__ void __launch_bounds__(slab)
    spmv_kernel(index_type rows, const std::int64_t* __restrict__ slab_ptr, const index_type* __restrict__ band_ptr,
                const index_type* __restrict__ band_offset, const index_type* __restrict__ band_width,
                const V* __restrict__ values, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y,
                int window_capacity, FusedTail<V> tail)
{
    extern __shared__ __align__(16) unsigned char shared_raw[];
    V* window = reinterpret_cast<V*>(shared_raw);

    const index_type s = blockIdx.x;
    const int t = threadIdx.x;
    const std::int64_t r0 = static_cast<std::int64_t>(s) * slab;
    const index_type row = static_cast<index_type>(r0 + t);
    const bool in_range = r0 + t < rows;
    const index_type b_begin = band_ptr[s], b_end = band_ptr[s + 1];
    const std::int64_t diagonals = (slab_ptr[s + 1] - slab_ptr[s]) / slab;
    const V* stored = values + slab_ptr[s] + t;

    V sum = 0;
    const std::int64_t bands = b_end - b_begin;
    if (diagonals >= bands * bdia_staged_band_width && bands * (slab - 1) + diagonals <= window_capacity) {
        int at = 0;
        for (index_type b = b_begin; b < b_end; ++b) {
            const int size = band_width[b] + slab - 1;
            const std::int64_t begin = r0 + band_offset[b];
            for (int j = t; j < size; j += slab) {
                const std::int64_t c = begin + j;
                window[at + j] = c >= 0 && c < rows ? __ldg(x + c) : V(0);
            }
            at += size;
        }
        __syncthreads();
        const V* xw = window + t;
        for (index_type b = b_begin; in_range && b < b_end; ++b) {
            const index_type w = band_width[b];
#pragma unroll 4
            for (int k = 0; k < w; ++k) sum += stored[static_cast<std::int64_t>(k) * slab] * xw[k];
            stored += static_cast<std::int64_t>(w) * slab;
            xw += w + slab - 1;
        }
    } else {
        for (index_type b = b_begin; in_range && b < b_end; ++b) {
            const index_type w = band_width[b];
            sum += band_sum<true>(stored, x, r0 + band_offset[b] + t, w, rows);
            stored += static_cast<std::int64_t>(w) * slab;
        }
    }
    if (F == Fused::none) {
        if (in_range) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
        return;
    }
    double product = 0;
    if (in_range) product = fused_row(F, tail, x, y, row, sum);
    using SlabReduce = cub::BlockReduce<double, slab>;
    __shared__ typename SlabReduce::TempStorage reduce_storage;
    const double total = SlabReduce(reduce_storage).Sum(product);
    if (t == 0) tail.partials[s] = total;
}

/// Exclusive prefix sum of values[0 .. count) in place (count includes the zeroed total slot).
template <typename T>
void exclusive_scan(const Executor& exec, T* values, std::size_t count, cudaStream_t stream)
{
    std::size_t temp_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, values, count, stream));
    void* temp = exec.alloc(temp_bytes);
    const cudaError_t err = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, values, count, stream);
    exec.free(temp);  // the pool frees it in stream order
    GPUFEM_CUDA_CHECK(err);
}

}  // namespace

template <typename V>
void bdia_slab_bands(const Executor& exec, const Csr<V>& a, index_type gap, index_type* band_ptr,
                     std::int64_t* slab_ptr, index_type* stats)
{
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const index_type slabs = (a.rows + slab - 1) / slab;
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(stats, 0, 5 * sizeof(index_type), stream));
    // The last entries = 0 before the scans make them the totals.
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(slab_ptr + slabs, 0, sizeof(std::int64_t), stream));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(band_ptr + slabs, 0, sizeof(index_type), stream));
    if (slabs == 0) return;
    slab_count_kernel<<<slabs, slab, 0, stream>>>(a.rows, a.row_ptr.data(), a.col_idx.data(), gap, band_ptr,
                                                   slab_ptr, stats);
    GPUFEM_CUDA_CHECK_LAUNCH();
    exclusive_scan(exec, slab_ptr, static_cast<std::size_t>(slabs) + 1, stream);
    exclusive_scan(exec, band_ptr, static_cast<std::size_t>(slabs) + 1, stream);
}

template <typename V>
void bdia_band_list(const Executor& exec, const Csr<V>& a, index_type gap, const index_type* band_ptr,
                    index_type* band_offset, index_type* band_width)
{
    const index_type slabs = (a.rows + slab - 1) / slab;
    if (slabs == 0) return;
    slab_list_kernel<<<slabs, slab, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), gap, band_ptr, band_offset, band_width);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void bdia_fill(const Executor& exec, const Csr<V>& a, Bdia<V>& b)
{
    auto stream = static_cast<cudaStream_t>(exec.stream());
    if (b.values.empty()) return;
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(b.values.data(), 0, b.values.bytes(), stream));
    fill_kernel<V><<<b.slabs(), slab, 0, stream>>>(a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(),
                                                   b.slab_ptr.data(), b.band_ptr.data(), b.band_offset.data(),
                                                   b.band_width.data(), b.values.data());
    GPUFEM_CUDA_CHECK_LAUNCH();
}

namespace {

/// Shared memory a block of spmv_kernel<V, F> declares itself (the fused dot's reduction).
template <typename V, Fused F>
std::size_t static_shared_bytes()
{
    static const std::size_t bytes = [] {
        cudaFuncAttributes attributes{};
        GPUFEM_CUDA_CHECK(cudaFuncGetAttributes(&attributes, spmv_kernel<V, F>));
        return attributes.sharedSizeBytes;
    }();
    return bytes;
}

/// The access policy that keeps the first bytes at base in the L2 cache: a window of at most
/// the device's largest, its hit ratio the share of it that the persisting set-aside holds. The
/// set-aside is made the device's largest the first time (a device-wide limit, kept for the
/// process; lines outside a window use it while no persisting line needs it).
cudaAccessPolicyWindow l2_window(int device, const void* base, std::size_t bytes)
{
    static std::mutex mutex;
    static std::map<int, std::pair<std::size_t, std::size_t>> limits;  // set-aside, window
    std::pair<std::size_t, std::size_t> limit;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = limits.find(device);
        if (it == limits.end()) {
            int persisting = 0, window = 0;
            GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&persisting, cudaDevAttrMaxPersistingL2CacheSize, device));
            GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, device));
            if (persisting > 0) GPUFEM_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, persisting));
            it = limits.emplace(device, std::pair<std::size_t, std::size_t>(persisting, window)).first;
        }
        limit = it->second;
    }
    cudaAccessPolicyWindow w{};
    w.base_ptr = const_cast<void*>(base);
    w.num_bytes = std::min(bytes, limit.second);
    w.hitRatio = w.num_bytes == 0 ? 0.0f
                                  : static_cast<float>(std::min(1.0, double(limit.first) / double(w.num_bytes)));
    w.hitProp = cudaAccessPropertyPersisting;
    w.missProp = cudaAccessPropertyStreaming;
    return w;
}

/// Launches spmv_kernel<V, F> over the slabs with the shared windows the cap allows.
template <typename V, Fused F>
void launch_spmv(const Executor& exec, const Bdia<V>& a, V alpha, const V* x, V beta, V* y,
                 std::size_t max_shared_bytes, const FusedTail<V>& tail)
{
    // Shared memory per block: the widest slab's windows, up to the cap and to what a block
    // may have beside the kernel's own shared memory: 48 KB in all, or past a cap of 48 KB
    // what it may opt in to on this device (asked only then: the usual cap keeps the product
    // free of driver queries). Slabs whose windows exceed it take the global-memory path.
    constexpr std::size_t default_limit = 48 * 1024;
    std::size_t limit = default_limit;
    if (max_shared_bytes > default_limit) {
        int optin_bytes = 0;
        GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, exec.device_id()));
        limit = static_cast<std::size_t>(optin_bytes);
    }
    const std::size_t own = static_shared_bytes<V, F>();
    const std::size_t cap = std::min(max_shared_bytes, limit > own ? limit - own : 0);
    const auto capacity = static_cast<int>(std::min<std::int64_t>(
        {std::int64_t{a.max_window}, static_cast<std::int64_t>(cap / sizeof(V)), INT_MAX / 2}));
    const std::size_t shared_bytes = static_cast<std::size_t>(capacity) * sizeof(V);
    if (shared_bytes + own > default_limit)  // beyond the default limit a kernel must opt in
        GPUFEM_CUDA_CHECK(cudaFuncSetAttribute(spmv_kernel<V, F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shared_bytes)));
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    if (!a.keep_in_l2) {
        spmv_kernel<V, F><<<a.slabs(), slab, shared_bytes, stream>>>(
            a.rows, a.slab_ptr.data(), a.band_ptr.data(), a.band_offset.data(), a.band_width.data(),
            a.values.data(), alpha, x, beta, y, capacity, tail);
        GPUFEM_CUDA_CHECK_LAUNCH();
        return;
    }
    // The window goes with the launch itself, so that a CUDA graph capturing it keeps it.
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(a.slabs()));
    config.blockDim = dim3(slab);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    cudaLaunchAttribute window{};
    window.id = cudaLaunchAttributeAccessPolicyWindow;
    window.val.accessPolicyWindow = l2_window(exec.device_id(), a.values.data(), a.values.bytes());
    config.attrs = &window;
    config.numAttrs = 1;
    GPUFEM_CUDA_CHECK(cudaLaunchKernelEx(&config, spmv_kernel<V, F>, a.rows, a.slab_ptr.data(), a.band_ptr.data(),
                                         a.band_offset.data(), a.band_width.data(), a.values.data(), alpha, x, beta,
                                         y, capacity, tail));
}

}  // namespace

template <typename V>
void bdia_spmv(const Executor& exec, const Bdia<V>& a, V alpha, const V* x, V beta, V* y,
               std::size_t max_shared_bytes)
{
    if (a.rows == 0) return;
    launch_spmv<V, Fused::none>(exec, a, alpha, x, beta, y, max_shared_bytes, FusedTail<V>{});
}

template <typename V>
void bdia_spmv_dot(const Executor& exec, const Bdia<V>& a, const V* x, V* y, double* partials,
                   std::size_t max_shared_bytes)
{
    if (a.rows == 0) return;
    launch_spmv<V, Fused::dot>(exec, a, V(1), x, V(0), y, max_shared_bytes, FusedTail<V>{partials});
}

template <typename V>
void bdia_spmv_direction(const Executor& exec, const Bdia<V>& a, const V* z, const double* beta, V* p, V* q,
                         double* partials, std::size_t max_shared_bytes)
{
    if (a.rows == 0) return;
    launch_spmv<V, Fused::direction>(exec, a, V(1), z, V(0), q, max_shared_bytes, FusedTail<V>{partials, p, beta});
}

std::size_t bdia_available_bytes(const Executor& exec)
{
    GPUFEM_CUDA_CHECK(cudaSetDevice(exec.device_id()));
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUFEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(bdia_slab_bands, bdia_band_list, bdia_fill, bdia_spmv, bdia_spmv_dot,
                                  bdia_spmv_direction)

}  // namespace gpufem::kernels::cuda
