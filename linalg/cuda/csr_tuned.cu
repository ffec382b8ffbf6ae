#include "linalg/csr_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

/// Reguly & Giles 2012, Figure 3: a block processes repeat * blockDim / COOP consecutive rows,
/// COOP threads per row reading adjacent entries, reduced with shuffles inside the COOP-wide
/// group.
template <int COOP, typename V, typename O>
__global__ void __launch_bounds__(512)
    csr_coop_kernel(index_type rows, int repeat, const O* __restrict__ ptr,
                    const index_type* __restrict__ col, const V* __restrict__ val, V alpha,
                    const V* __restrict__ x, V beta, V* __restrict__ y)
{
    const int groups = blockDim.x / COOP;
    const int group = threadIdx.x / COOP;
    const int lane = threadIdx.x % COOP;
    // Lanes of this thread's group within its warp (all of them take the same branches).
    const unsigned mask =
        COOP == 32 ? 0xffffffffu : (((1u << COOP) - 1u) << ((threadIdx.x % 32) / COOP * COOP));
    long long row = static_cast<long long>(blockIdx.x) * repeat * groups + group;
    for (int r = 0; r < repeat; ++r, row += groups) {
        if (row >= rows) return;
        const O begin = ptr[row], end = ptr[row + 1];
        V sum = 0;
        for (O k = begin + lane; k < end; k += COOP) sum += val[k] * __ldg(x + col[k]);
#pragma unroll
        for (int offset = COOP / 2; offset > 0; offset /= 2)
            sum += __shfl_down_sync(mask, sum, offset, COOP);
        if (lane == 0) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

template <int COOP, typename V, typename O>
void launch(cudaStream_t stream, const CsrParams& p, const Csr<V, O>& a, V alpha, const V* x,
            V beta, V* y)
{
    const long long grid = csr_grid_size(a.rows, p);
    csr_coop_kernel<COOP, V, O><<<static_cast<unsigned>(grid), p.block, 0, stream>>>(
        a.rows, p.repeat, a.row_ptr.data(), a.col_idx.data(), a.values.data(), alpha, x, beta, y);
}

template <typename V, typename O>
void spmv_params(const Executor& exec, const CsrParams& p, const Csr<V, O>& a, V alpha,
                 const V* x, V beta, V* y)
{
    if (a.rows == 0) return;
    auto stream = static_cast<cudaStream_t>(exec.stream());
    switch (p.coop) {
    case 1: launch<1>(stream, p, a, alpha, x, beta, y); break;
    case 2: launch<2>(stream, p, a, alpha, x, beta, y); break;
    case 4: launch<4>(stream, p, a, alpha, x, beta, y); break;
    case 8: launch<8>(stream, p, a, alpha, x, beta, y); break;
    case 16: launch<16>(stream, p, a, alpha, x, beta, y); break;
    case 32: launch<32>(stream, p, a, alpha, x, beta, y); break;
    default: throw std::invalid_argument("csr: coop must be a power of two from 1 to 32");
    }
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename V, typename O>
void csr_spmv_params(const Executor& exec, const CsrParams& p, const Csr<V, O>& a, V alpha,
                     const V* x, V beta, V* y)
{
    spmv_params(exec, p, a, alpha, x, beta, y);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(csr_spmv_params)

}  // namespace gpufem::kernels::cuda
