// CG in one cooperative kernel on a bDIA matrix (solver/krylov/resident_cg.hpp). The grid is
// as many blocks as the device keeps resident, each owning up to resident_cg_max_slabs_per_block
// slabs (block b: slabs b, b + grid, ...), one thread a row of each: the row's x, r, p, q and z
// live in registers for the whole solve and only z, the product's input, is written to memory.
// An iteration is two phases, each ending at a grid-wide barrier after every block has written
// its partial sums: (1) the product w = A z through the slab's bands, p and q, the partials of
// p.q; (2) alpha, x, r, z = dinv r, the partials of r.z and r.r. After each barrier every block
// adds all partials in the same order (so all blocks take the same scalar step and branch
// alike) and keeps its own copy of the solve's scalars in shared memory; block 0 writes the
// history and, at the end, the state.
#include <map>
#include <mutex>

#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>

#include "linalg/cuda/bdia_band_sum.cuh"
#include "linalg/cuda/cuda_check.hpp"
#include "solver/krylov/cuda/block_sums.cuh"
#include "solver/krylov/resident_cg.hpp"

namespace gpufem::kernels::cuda {
namespace {

namespace cg = cooperative_groups;
constexpr int slab = bdia_slab;

/// What the kernel reads and writes.
template <typename V>
struct ResidentArgs {
    index_type rows = 0;
    index_type slabs = 0;
    const std::int64_t* slab_ptr = nullptr;
    const index_type* band_ptr = nullptr;
    const index_type* band_offset = nullptr;
    const index_type* band_width = nullptr;
    const V* values = nullptr;
    const V* dinv = nullptr;
    V* x = nullptr;
    V* r = nullptr;
    V* z = nullptr;          ///< written by every block, read by its neighbours: never __ldg
    double* partials = nullptr;  ///< 3 x grid: p.q, r.z, r.r per block
    KrylovScalars* state = nullptr;
    double* history = nullptr;
};

/// Row r0 + t of slab s times z, z read through L1 with ordinary loads: it changes between
/// the barriers, which order its writes before these reads.
template <typename V>
__device__ V slab_row_product(const ResidentArgs<V>& a, index_type s, int t)
{
    const std::int64_t r0 = static_cast<std::int64_t>(s) * slab;
    const V* stored = a.values + a.slab_ptr[s] + t;
    V sum = 0;
    for (index_type b = a.band_ptr[s]; b < a.band_ptr[s + 1]; ++b) {
        const index_type w = a.band_width[b];
        sum += band_sum<false>(stored, a.z, r0 + a.band_offset[b] + t, w, a.rows);
        stored += static_cast<std::int64_t>(w) * slab;
    }
    return sum;
}

using Reduce1 = cub::BlockReduce<Sums<1>, slab>;
using Reduce2 = cub::BlockReduce<Sums<2>, slab>;

/// The block's shared memory: its copy of the scalars and the reductions' storage.
struct ResidentShared {
    KrylovScalars s;
    union {
        typename Reduce1::TempStorage one;
        typename Reduce2::TempStorage two;
    } temp;
};

/// The block's sum of its threads' K values, valid in thread 0.
template <int K>
__device__ Sums<K> block_sum(ResidentShared& sh, const Sums<K>& mine)
{
    static_assert(K == 1 || K == 2);
    if constexpr (K == 1)
        return Reduce1(sh.temp.one).Reduce(mine, SumOp{});
    else
        return Reduce2(sh.temp.two).Reduce(mine, SumOp{});
}

/// Writes the block's sums of K values to partials[k * grid + block].
template <int K>
__device__ void write_partials(ResidentShared& sh, Sums<K> mine, double* partials)
{
    const Sums<K> block = block_sum(sh, mine);
    if (threadIdx.x == 0)
        for (int k = 0; k < K; ++k) partials[k * gridDim.x + blockIdx.x] = block.v[k];
    __syncthreads();  // temp reused
}

/// The grid's totals of the K rows of partials (each grid values), added in the same order in
/// every block; valid in thread 0.
template <int K>
__device__ Sums<K> grid_totals(ResidentShared& sh, const double* partials)
{
    Sums<K> mine{};
    for (int k = 0; k < K; ++k)
        for (unsigned i = threadIdx.x; i < gridDim.x; i += slab) mine.v[k] += partials[k * gridDim.x + i];
    const Sums<K> total = block_sum(sh, mine);
    __syncthreads();  // temp reused
    return total;
}

/// The rows a thread owns: row j of slab blockIdx.x + j * gridDim.x.
template <typename V, int R>
struct OwnRows {
    V x[R], r[R], d[R], z[R], p[R], q[R];
    index_type row[R];
    bool valid[R];
};

template <typename V, int R>
__global__ void __launch_bounds__(slab) resident_cg_kernel(ResidentArgs<V> a)
{
    __shared__ ResidentShared sh;
    cg::grid_group grid = cg::this_grid();
    const int t = threadIdx.x;
    OwnRows<V, R> own;
#pragma unroll
    for (int j = 0; j < R; ++j) {
        const index_type s = blockIdx.x + j * gridDim.x;
        own.row[j] = s * slab + t;
        own.valid[j] = s < a.slabs && own.row[j] < a.rows;
        own.p[j] = own.q[j] = V(0);
        own.x[j] = own.r[j] = own.z[j] = own.d[j] = V(0);
        if (!own.valid[j]) continue;
        own.x[j] = a.x[own.row[j]];
        own.r[j] = a.r[own.row[j]];
        own.d[j] = a.dinv ? a.dinv[own.row[j]] : V(1);
        own.z[j] = a.dinv ? own.d[j] * own.r[j] : own.r[j];
        a.z[own.row[j]] = own.z[j];
    }
    if (t == 0) sh.s = *a.state;
    grid.sync();
    while (sh.s.status == state_running) {
        const V beta = static_cast<V>(sh.s.beta);
        Sums<1> pq{};
#pragma unroll
        for (int j = 0; j < R; ++j) {
            const index_type s = blockIdx.x + j * gridDim.x;
            if (s >= a.slabs) continue;
            const V w = own.valid[j] ? slab_row_product(a, s, t) : V(0);
            own.p[j] = own.z[j] + beta * own.p[j];
            own.q[j] = w + beta * own.q[j];
            pq.v[0] += double(own.p[j]) * double(own.q[j]);
        }
        write_partials<1>(sh, pq, a.partials);
        grid.sync();
        const Sums<1> pq_total = grid_totals<1>(sh, a.partials);
        if (t == 0) merged::cg_alpha(sh.s, pq_total.v[0]);
        __syncthreads();
        if (sh.s.status != state_running) break;
        const V alpha = static_cast<V>(sh.s.alpha);
        Sums<2> rzr{};
#pragma unroll
        for (int j = 0; j < R; ++j) {
            if (!own.valid[j]) continue;
            own.x[j] += alpha * own.p[j];
            own.r[j] -= alpha * own.q[j];
            own.z[j] = a.dinv ? own.d[j] * own.r[j] : own.r[j];
            a.z[own.row[j]] = own.z[j];
            rzr.v[0] += double(own.r[j]) * double(own.z[j]);
            rzr.v[1] += double(own.r[j]) * double(own.r[j]);
        }
        write_partials<2>(sh, rzr, a.partials + gridDim.x);
        grid.sync();
        const Sums<2> totals = grid_totals<2>(sh, a.partials + gridDim.x);
        if (t == 0) merged::cg_finish(sh.s, totals.v[0], totals.v[1], blockIdx.x == 0 ? a.history : nullptr);
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < R; ++j) {
        if (!own.valid[j]) continue;
        a.x[own.row[j]] = own.x[j];
        a.r[own.row[j]] = own.r[j];
    }
    if (blockIdx.x == 0 && t == 0) *a.state = sh.s;
}

/// Blocks of resident_cg_kernel<V, R> the device keeps resident at once (cached per device).
template <typename V, int R>
int resident_blocks(int device)
{
    static std::mutex mutex;
    static std::map<int, int> known;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(device);
    if (it != known.end()) return it->second;
    int cooperative = 0, sms = 0, per_sm = 0;
    GPUFEM_CUDA_CHECK(cudaSetDevice(device));  // the occupancy query asks the current device
    GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    GPUFEM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPUFEM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, resident_cg_kernel<V, R>, slab, 0));
    const int blocks = cooperative ? per_sm * sms : 0;
    known.emplace(device, blocks);
    return blocks;
}

/// Slabs a block owns for a matrix of this many slabs (the fewest that fit), or 0.
template <typename V>
int slabs_per_block(int device, index_type slabs)
{
    const auto fits = [&](int blocks, int r) { return (static_cast<std::int64_t>(slabs) + r - 1) / r <= blocks; };
    if (fits(resident_blocks<V, 1>(device), 1)) return 1;
    if (fits(resident_blocks<V, 2>(device), 2)) return 2;
    if (fits(resident_blocks<V, 4>(device), 4)) return 4;
    return 0;
}
static_assert(resident_cg_max_slabs_per_block == 4, "slabs_per_block tries 1, 2 and 4");

/// Launches resident_cg_kernel<V, R> cooperatively over ceil(slabs / R) blocks, with its
/// 3 x grid partial sums from the executor's pool.
template <typename V, int R>
void launch(const Executor& exec, ResidentArgs<V> args)
{
    const int grid = static_cast<int>((static_cast<std::int64_t>(args.slabs) + R - 1) / R);
    void* partials = exec.alloc(3 * static_cast<std::size_t>(grid) * sizeof(double));
    args.partials = static_cast<double*>(partials);
    void* params[] = {&args};
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    const cudaError_t err = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(resident_cg_kernel<V, R>),
                                                        dim3(grid), dim3(slab), params, 0, stream);
    exec.free(partials);  // the pool frees it in stream order
    GPUFEM_CUDA_CHECK(err);
}

}  // namespace

template <typename V>
bool cg_resident_fits(const Executor& exec, index_type slabs)
{
    return slabs > 0 && slabs_per_block<V>(exec.device_id(), slabs) > 0;
}

template <typename V>
void cg_resident_bdia(const Executor& exec, const MergedWorkspace& ws, const Bdia<V>& a, const V* dinv, V* x,
                      V* r, V* z)
{
    if (a.rows == 0) return;
    ResidentArgs<V> args;
    args.rows = a.rows;
    args.slabs = a.slabs();
    args.slab_ptr = a.slab_ptr.data();
    args.band_ptr = a.band_ptr.data();
    args.band_offset = a.band_offset.data();
    args.band_width = a.band_width.data();
    args.values = a.values.data();
    args.dinv = dinv;
    args.x = x;
    args.r = r;
    args.z = z;
    args.state = ws.state;
    args.history = ws.history;
    switch (slabs_per_block<V>(exec.device_id(), args.slabs)) {
    case 1: return launch<V, 1>(exec, args);
    case 2: return launch<V, 2>(exec, args);
    case 4: return launch<V, 4>(exec, args);
    default:
        throw std::invalid_argument("cg_resident_bdia: the matrix's slabs do not fit the device's resident blocks");
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(cg_resident_fits, cg_resident_bdia)

}  // namespace gpufem::kernels::cuda
