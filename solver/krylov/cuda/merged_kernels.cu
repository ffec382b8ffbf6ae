// The merged solver kernels on the GPU. Every kernel walks the rows with a fixed grid-stride
// (ws.grid blocks of 256 threads: the same partial sums every run, so results are bitwise
// reproducible); a kernel that ends in dot products adds its values per block (CUB), writes
// one partial per block, and the last block to finish (atomic ticket) adds the partials in a
// fixed order and does the scalar step of merged_scalars.hpp in thread 0 (split: leaves the
// totals for the all-reduce, and scalar_step_kernel runs the step after it). No host round trip.
#include <climits>

#include <cub/block/block_reduce.cuh>

#include "linalg/cuda/cuda_check.hpp"
#include "solver/krylov/cuda/block_sums.cuh"
#include "solver/krylov/merged_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;
using index = long long;

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }


/// Adds each thread's K values over the whole grid. Returns true in thread 0 of the last
/// block to finish, with the grid totals in sums; every other thread gets false.
template <int K>
__device__ bool grid_reduce(Sums<K>& sums, const MergedWorkspace& ws)
{
    using BlockReduce = cub::BlockReduce<Sums<K>, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    __shared__ bool is_last;
    Sums<K> block = BlockReduce(storage).Reduce(sums, SumOp{});
    if (threadIdx.x == 0) {
        for (int k = 0; k < K; ++k) ws.partials[k * ws.grid + blockIdx.x] = block.v[k];
        __threadfence();  // partials visible before the ticket is taken
        const unsigned ticket = atomicAdd(ws.counter, 1u);
        is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return false;
    __threadfence();
    Sums<K> mine;
    for (int k = 0; k < K; ++k) {
        double t = 0;
        for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += block_size)
            t += __ldcg(ws.partials + k * ws.grid + i);
        mine.v[k] = t;
    }
    __syncthreads();  // storage reused
    sums = BlockReduce(storage).Reduce(mine, SumOp{});
    if (threadIdx.x == 0) *ws.counter = 0;  // ready for the next reduction
    return threadIdx.x == 0;
}

__device__ bool running(const MergedWorkspace& ws) { return ws.state->status == state_running; }

template <typename V>
__device__ V precondition(const V* dinv, index i, V r)
{
    return dinv ? dinv[i] * r : r;
}

#define GPUFEM_ROWS(i, n)                                                                      \
    for (index i = index(blockIdx.x) * block_size + threadIdx.x; i < static_cast<index>(n);    \
         i += index(gridDim.x) * block_size)

template <int K, typename V>
struct DotArgs {
    const V* x[K];
    const V* y[K];
};

template <int K, typename V>
__global__ void __launch_bounds__(block_size)
    multi_dot_kernel(MergedWorkspace ws, std::size_t n, DotArgs<K, V> args, double* result)
{
    Sums<K> s{};
    GPUFEM_ROWS(i, n)
    for (int k = 0; k < K; ++k) s.v[k] += double(args.x[k][i]) * double(args.y[k][i]);
    if (grid_reduce(s, ws))
        for (int k = 0; k < K; ++k) result[k] = s.v[k];
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    invert_diagonal_kernel(std::size_t n, const V* __restrict__ d, V* __restrict__ inverse,
                           unsigned long long* first_bad)
{
    GPUFEM_ROWS(i, n)
    {
        const V di = d[i];
        if (di == V(0) || !merged::finite(double(di))) {
            atomicMin(first_bad, static_cast<unsigned long long>(i));
        } else {
            inverse[i] = V(1) / di;
        }
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_start_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ b,
                    const V* __restrict__ dinv, V* __restrict__ r, V* __restrict__ p)
{
    Sums<3> s{};
    GPUFEM_ROWS(i, n)
    {
        const V ri = b[i] - r[i];
        const V zi = precondition(dinv, i, ri);
        r[i] = ri;
        p[i] = zi;
        s.v[0] += double(ri) * double(zi);
        s.v[1] += double(ri) * double(ri);
        s.v[2] += double(b[i]) * double(b[i]);
    }
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::cg_start, s.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_alpha_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ p,
                    const V* __restrict__ q)
{
    if (!running(ws)) return;
    Sums<1> s{};
    GPUFEM_ROWS(i, n) s.v[0] += double(p[i]) * double(q[i]);
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::cg_alpha, s.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_update_xr_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ p,
                        const V* __restrict__ q, const V* __restrict__ dinv, V* __restrict__ x,
                        V* __restrict__ r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    Sums<2> s{};
    GPUFEM_ROWS(i, n)
    {
        if (x) x[i] += alpha * p[i];
        const V ri = r[i] - alpha * q[i];
        r[i] = ri;
        s.v[0] += double(ri) * double(precondition(dinv, i, ri));
        s.v[1] += double(ri) * double(ri);
    }
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::cg_finish, s.v);
}

/// The sum of count partials, the same in every block (each thread's strided run, then the
/// block's reduction, in a fixed order); every thread gets it.
__device__ double block_total(const double* __restrict__ partials, std::size_t count)
{
    using BlockReduce = cub::BlockReduce<double, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    __shared__ double total;
    double mine = 0;
    for (std::size_t i = threadIdx.x; i < count; i += block_size) mine += partials[i];
    const double sum = BlockReduce(storage).Sum(mine);
    if (threadIdx.x == 0) total = sum;
    __syncthreads();
    return total;
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_update_partials_kernel(MergedWorkspace ws, std::size_t n, std::size_t count,
                              const double* __restrict__ partials, const V* __restrict__ p,
                              const V* __restrict__ q, const V* __restrict__ dinv, V* __restrict__ x,
                              V* __restrict__ r, V* __restrict__ z)
{
    if (!running(ws)) return;
    const double pq = block_total(partials, count);
    const double rho = ws.state->rho;
    Sums<3> s{};
    if (merged::cg_alpha_taken(rho, pq)) {
        const V alpha = static_cast<V>(rho / pq);
        GPUFEM_ROWS(i, n)
        {
            x[i] += alpha * p[i];
            const V ri = r[i] - alpha * q[i];
            r[i] = ri;
            const V zi = precondition(dinv, i, ri);
            if (z) z[i] = zi;
            s.v[1] += double(ri) * double(zi);
            s.v[2] += double(ri) * double(ri);
        }
    }
    if (grid_reduce(s, ws)) {
        s.v[0] = pq;
        finish_reduction(ws, ScalarStep::cg_alpha_finish, s.v);
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_update_xr_residual_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ p,
                                 const V* __restrict__ q, V* __restrict__ x, V* __restrict__ r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    Sums<1> s{};
    GPUFEM_ROWS(i, n)
    {
        x[i] += alpha * p[i];
        const V ri = r[i] - alpha * q[i];
        r[i] = ri;
        s.v[0] += double(ri) * double(ri);
    }
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::residual, s.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_rho_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ r,
                  const V* __restrict__ z, bool start)
{
    if (!running(ws)) return;
    Sums<1> s{};
    GPUFEM_ROWS(i, n) s.v[0] += double(r[i]) * double(z[i]);
    if (grid_reduce(s, ws))
        finish_reduction(ws, start ? ScalarStep::cg_beta_start : ScalarStep::cg_beta, s.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg_update_p_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ r,
                       const V* __restrict__ dinv, V* __restrict__ p)
{
    if (!running(ws)) return;
    const V beta = static_cast<V>(ws.state->beta);
    GPUFEM_ROWS(i, n) p[i] = precondition(dinv, i, r[i]) + beta * p[i];
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg1_start_kernel(std::size_t n, const V* __restrict__ b, const V* __restrict__ dinv, V* __restrict__ r,
                     V* __restrict__ z)
{
    GPUFEM_ROWS(i, n)
    {
        const V ri = b[i] - r[i];
        r[i] = ri;
        if (dinv) z[i] = dinv[i] * ri;
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg1_dots_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ b, const V* __restrict__ r,
                    const V* __restrict__ z, const V* __restrict__ s)
{
    if (!b && !running(ws)) return;
    Sums<4> sums{};
    GPUFEM_ROWS(i, n)
    {
        const double ri = r[i], zi = z ? double(z[i]) : ri;
        sums.v[0] += ri * ri;
        sums.v[1] += ri * zi;
        sums.v[2] += zi * double(s[i]);
        if (b) sums.v[3] += double(b[i]) * double(b[i]);
    }
    if (grid_reduce(sums, ws)) finish_reduction(ws, b ? ScalarStep::cg1_start : ScalarStep::cg1_step, sums.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    cg1_update_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ z_in, const V* __restrict__ dinv,
                      const V* __restrict__ s, V* __restrict__ p, V* __restrict__ q, V* __restrict__ x,
                      V* __restrict__ r, V* __restrict__ z_out)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha), beta = static_cast<V>(ws.state->beta);
    GPUFEM_ROWS(i, n)
    {
        const V zi = z_in ? z_in[i] : precondition(dinv, i, r[i]);
        const V pi = zi + beta * p[i];
        const V qi = s[i] + beta * q[i];
        p[i] = pi;
        q[i] = qi;
        x[i] += alpha * pi;
        const V ri = r[i] - alpha * qi;
        r[i] = ri;
        if (z_out) z_out[i] = dinv[i] * ri;
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    bicgstab_start_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ b,
                          V* __restrict__ r, V* __restrict__ rhat, V* __restrict__ p,
                          V* __restrict__ v)
{
    Sums<2> s{};
    GPUFEM_ROWS(i, n)
    {
        const V ri = b[i] - r[i];
        r[i] = ri;
        rhat[i] = ri;
        p[i] = 0;
        v[i] = 0;
        s.v[0] += double(ri) * double(ri);
        s.v[1] += double(b[i]) * double(b[i]);
    }
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::bicgstab_start, s.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    bicgstab_update_p_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ r,
                             const V* __restrict__ v, const V* __restrict__ dinv, V* p, V* phat)
{
    if (!running(ws)) return;
    const V beta = static_cast<V>(ws.state->beta);
    const V omega = static_cast<V>(ws.state->omega);
    GPUFEM_ROWS(i, n)
    {
        const V pi = r[i] + beta * (p[i] - omega * v[i]);
        p[i] = pi;
        if (dinv) phat[i] = dinv[i] * pi;
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    bicgstab_alpha_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ rhat,
                          const V* __restrict__ v)
{
    if (!running(ws)) return;
    Sums<1> s{};
    GPUFEM_ROWS(i, n) s.v[0] += double(rhat[i]) * double(v[i]);
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::bicgstab_alpha, s.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    bicgstab_update_s_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ r,
                             const V* __restrict__ v, const V* __restrict__ dinv, V* s, V* shat)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    GPUFEM_ROWS(i, n)
    {
        const V si = r[i] - alpha * v[i];
        s[i] = si;
        if (dinv) shat[i] = dinv[i] * si;
    }
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    bicgstab_omega_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ s,
                          const V* __restrict__ t)
{
    if (!running(ws)) return;
    Sums<3> sums{};
    GPUFEM_ROWS(i, n)
    {
        const double ti = t[i], si = s[i];
        sums.v[0] += ti * si;
        sums.v[1] += ti * ti;
        sums.v[2] += si * si;
    }
    if (grid_reduce(sums, ws)) finish_reduction(ws, ScalarStep::bicgstab_omega, sums.v);
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    bicgstab_update_xr_kernel(MergedWorkspace ws, std::size_t n, const V* __restrict__ rhat,
                              const V* phat, const V* shat, const V* s, const V* __restrict__ t,
                              V* __restrict__ x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    const V omega = static_cast<V>(ws.state->omega);
    Sums<2> sums{};
    GPUFEM_ROWS(i, n)
    {
        x[i] += alpha * phat[i] + omega * shat[i];
        const V ri = s[i] - omega * t[i];
        r[i] = ri;
        sums.v[0] += double(rhat[i]) * double(ri);
        sums.v[1] += double(ri) * double(ri);
    }
    if (grid_reduce(sums, ws)) finish_reduction(ws, ScalarStep::bicgstab_finish, sums.v);
}

__global__ void __launch_bounds__(block_size)
    cg_alpha_partials_kernel(MergedWorkspace ws, std::size_t count, const double* __restrict__ partials)
{
    if (!running(ws)) return;
    Sums<1> s{};
    GPUFEM_ROWS(i, count) s.v[0] += __ldcg(partials + i);
    if (grid_reduce(s, ws)) finish_reduction(ws, ScalarStep::cg_alpha, s.v);
}

#undef GPUFEM_ROWS

__global__ void merged_init_kernel(MergedWorkspace ws, double tolerance, int max_iterations)
{
    *ws.state = KrylovScalars{};
    ws.state->tolerance = tolerance;
    ws.state->max_iterations = max_iterations;
    *ws.counter = 0;
}

__global__ void scalar_step_kernel(MergedWorkspace ws, ScalarStep step)
{
    if (!starts_solve(step) && !running(ws)) return;
    step_and_record(ws, step, ws.sums);
}

template <int K, typename V>
void launch_multi_dot(const Executor& exec, const MergedWorkspace& ws, std::size_t n,
                      const V* const* x, const V* const* y, double* result)
{
    DotArgs<K, V> args;
    for (int k = 0; k < K; ++k) {
        args.x[k] = x[k];
        args.y[k] = y[k];
    }
    multi_dot_kernel<K, V><<<ws.grid, block_size, 0, stream_of(exec)>>>(ws, n, args, result);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

/// Launches kernel on ws.grid blocks of the executor's stream.
#define GPUFEM_LAUNCH(kernel, ...)                                                          \
    do {                                                                                    \
        kernel<<<ws.grid, block_size, 0, stream_of(exec)>>>(ws, __VA_ARGS__);               \
        GPUFEM_CUDA_CHECK_LAUNCH();                                                         \
    } while (0)

template <typename V>
void multi_dot(const Executor& exec, const MergedWorkspace& ws, std::size_t n, int count,
               const V* const* x, const V* const* y, double* result)
{
    switch (count) {
    case 1: return launch_multi_dot<1>(exec, ws, n, x, y, result);
    case 2: return launch_multi_dot<2>(exec, ws, n, x, y, result);
    case 3: return launch_multi_dot<3>(exec, ws, n, x, y, result);
    case 4: return launch_multi_dot<4>(exec, ws, n, x, y, result);
    default: throw std::invalid_argument("multi_dot: 1 to 4 dot products at once");
    }
}

template <typename V>
long long invert_diagonal(const Executor& exec, std::size_t n, const V* d, V* inverse)
{
    if (n == 0) return -1;
    auto* flag = static_cast<unsigned long long*>(exec.scratch(sizeof(unsigned long long)));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(flag, 0xFF, sizeof(unsigned long long), stream_of(exec)));
    const unsigned grid = static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 65535u));
    invert_diagonal_kernel<<<grid, block_size, 0, stream_of(exec)>>>(n, d, inverse, flag);
    GPUFEM_CUDA_CHECK_LAUNCH();
    unsigned long long first = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&first, flag, sizeof first, cudaMemcpyDeviceToHost,
                                      stream_of(exec)));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return first == ULLONG_MAX ? -1 : static_cast<long long>(first);
}

template <typename V>
void cg_start(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* b,
              const V* dinv, V* r, V* p)
{
    GPUFEM_LAUNCH(cg_start_kernel<V>, n, b, dinv, r, p);
}

template <typename V>
void cg_alpha(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* p, const V* q)
{
    GPUFEM_LAUNCH(cg_alpha_kernel<V>, n, p, q);
}

template <typename V>
void cg_update_xr(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* p,
                  const V* q, const V* dinv, V* x, V* r)
{
    GPUFEM_LAUNCH(cg_update_xr_kernel<V>, n, p, q, dinv, x, r);
}

template <typename V>
void cg_update_xr_residual(const Executor& exec, const MergedWorkspace& ws, std::size_t n,
                           const V* p, const V* q, V* x, V* r)
{
    GPUFEM_LAUNCH(cg_update_xr_residual_kernel<V>, n, p, q, x, r);
}

template <typename V>
void cg_update_partials(const Executor& exec, const MergedWorkspace& ws, std::size_t n, std::size_t count,
                        const double* partials, const V* p, const V* q, const V* dinv, V* x, V* r, V* z)
{
    GPUFEM_LAUNCH(cg_update_partials_kernel<V>, n, count, partials, p, q, dinv, x, r, z);
}

template <typename V>
void cg_rho(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r, const V* z,
            bool start)
{
    GPUFEM_LAUNCH(cg_rho_kernel<V>, n, r, z, start);
}

template <typename V>
void cg_update_p(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r,
                 const V* dinv, V* p)
{
    GPUFEM_LAUNCH(cg_update_p_kernel<V>, n, r, dinv, p);
}

template <typename V>
void cg1_start(const Executor& exec, std::size_t n, const V* b, const V* dinv, V* r, V* z)
{
    if (n == 0) return;
    const unsigned grid = static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 65535u));
    cg1_start_kernel<V><<<grid, block_size, 0, stream_of(exec)>>>(n, b, dinv, r, z);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void cg1_dots(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* b, const V* r,
              const V* z, const V* s)
{
    GPUFEM_LAUNCH(cg1_dots_kernel<V>, n, b, r, z, s);
}

template <typename V>
void cg1_update(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* z_in, const V* dinv,
                const V* s, V* p, V* q, V* x, V* r, V* z_out)
{
    GPUFEM_LAUNCH(cg1_update_kernel<V>, n, z_in, dinv, s, p, q, x, r, z_out);
}

template <typename V>
void bicgstab_start(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* b,
                    V* r, V* rhat, V* p, V* v)
{
    GPUFEM_LAUNCH(bicgstab_start_kernel<V>, n, b, r, rhat, p, v);
}

template <typename V>
void bicgstab_update_p(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r,
                       const V* v, const V* dinv, V* p, V* phat)
{
    GPUFEM_LAUNCH(bicgstab_update_p_kernel<V>, n, r, v, dinv, p, phat);
}

template <typename V>
void bicgstab_alpha(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                    const V* v)
{
    GPUFEM_LAUNCH(bicgstab_alpha_kernel<V>, n, rhat, v);
}

template <typename V>
void bicgstab_update_s(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r,
                       const V* v, const V* dinv, V* s, V* shat)
{
    GPUFEM_LAUNCH(bicgstab_update_s_kernel<V>, n, r, v, dinv, s, shat);
}

template <typename V>
void bicgstab_omega(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* s,
                    const V* t)
{
    GPUFEM_LAUNCH(bicgstab_omega_kernel<V>, n, s, t);
}

template <typename V>
void bicgstab_update_xr(const Executor& exec, const MergedWorkspace& ws, std::size_t n,
                        const V* rhat, const V* phat, const V* shat, const V* s, const V* t, V* x,
                        V* r)
{
    GPUFEM_LAUNCH(bicgstab_update_xr_kernel<V>, n, rhat, phat, shat, s, t, x, r);
}

#undef GPUFEM_LAUNCH

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(multi_dot, invert_diagonal, cg_start, cg1_start, cg1_dots, cg1_update, cg_alpha, cg_update_xr, cg_update_xr_residual, cg_rho, cg_update_p, cg_update_partials,
                                  bicgstab_start, bicgstab_update_p, bicgstab_alpha, bicgstab_update_s, bicgstab_omega,
                                  bicgstab_update_xr)

void cg_alpha_partials(const Executor& exec, const MergedWorkspace& ws, std::size_t count, const double* partials)
{
    cg_alpha_partials_kernel<<<ws.grid, block_size, 0, stream_of(exec)>>>(ws, count, partials);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void merged_init(const Executor& exec, const MergedWorkspace& ws, double tolerance, int max_iterations)
{
    merged_init_kernel<<<1, 1, 0, stream_of(exec)>>>(ws, tolerance, max_iterations);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

void scalar_step(const Executor& exec, const MergedWorkspace& ws, ScalarStep step)
{
    scalar_step_kernel<<<1, 1, 0, stream_of(exec)>>>(ws, step);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace gpufem::kernels::cuda
