#include "assembly/dirichlet.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

/// One thread per row (rows are short in FE matrices).
template <typename V, typename O>
__global__ void apply_dirichlet_kernel(index_type rows, const O* __restrict__ ptr,
                                       const index_type* __restrict__ col, V* __restrict__ val,
                                       const std::uint8_t* __restrict__ mask,
                                       const V* __restrict__ g, V* __restrict__ rhs)
{
    const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows) eliminate_dirichlet_row(i, ptr, col, val, mask, g, rhs);
}

template <typename V, typename O>
void eliminate(const Executor& exec, Csr<V, O>& a, const std::uint8_t* mask, const V* g, V* rhs)
{
    if (a.rows == 0) return;
    apply_dirichlet_kernel<<<(a.rows + block_size - 1) / block_size, block_size, 0,
                             static_cast<cudaStream_t>(exec.stream())>>>(
        a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(), mask, g, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename V, typename O>
void apply_dirichlet(const Executor& exec, Csr<V, O>& a, const std::uint8_t* mask, const V* g, V* rhs)
{
    eliminate(exec, a, mask, g, rhs);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(apply_dirichlet)

}  // namespace gpufem::kernels::cuda
