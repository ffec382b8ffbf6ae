#include "assembly/element_kernels.hpp"
#include "assembly/element_math.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 128;

template <int NPE, int DIM, typename V>
__global__ void __launch_bounds__(block_size)
    element_matrices_kernel(ElementArgs<V> a, V* __restrict__ ke, V* __restrict__ fe)
{
    const index_type e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= a.num_cells) return;
    V k[NPE * NPE], f[NPE];
    element_stiffness_load<NPE, DIM>(a, e, k, f);
    for (int i = 0; i < NPE * NPE; ++i) ke[static_cast<long long>(e) * NPE * NPE + i] = k[i];
    for (int i = 0; i < NPE; ++i) fe[static_cast<long long>(e) * NPE + i] = f[i];
}

template <int NPE, int DIM, typename V>
__global__ void __launch_bounds__(block_size)
    assemble_csr_kernel(ElementArgs<V> a, const index_type* __restrict__ cell_to_csr,
                        V* __restrict__ values, V* __restrict__ rhs)
{
    const index_type e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= a.num_cells) return;
    V k[NPE * NPE], f[NPE];
    element_stiffness_load<NPE, DIM>(a, e, k, f);
    const index_type* pos = cell_to_csr + static_cast<long long>(e) * NPE * NPE;
    for (int i = 0; i < NPE * NPE; ++i) atomicAdd(values + pos[i], k[i]);
    for (int i = 0; i < NPE; ++i) atomicAdd(rhs + a.cells[static_cast<long long>(e) * NPE + i], f[i]);
}

unsigned grid_for(index_type cells) { return (cells + block_size - 1) / block_size; }

}  // namespace

template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe)
{
    if (data.num_cells == 0) return;
    const ElementArgs<V> a = data.args();
    auto stream = static_cast<cudaStream_t>(exec.stream());
    dispatch_element_type(data.type, [&]<int NPE, int DIM>() {
        element_matrices_kernel<NPE, DIM, V><<<grid_for(a.num_cells), block_size, 0, stream>>>(a, ke, fe);
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs)
{
    if (data.num_cells == 0) return;
    const ElementArgs<V> a = data.args();
    auto stream = static_cast<cudaStream_t>(exec.stream());
    dispatch_element_type(data.type, [&]<int NPE, int DIM>() {
        assemble_csr_kernel<NPE, DIM, V>
            <<<grid_for(a.num_cells), block_size, 0, stream>>>(a, cell_to_csr, values, rhs);
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
}

#define GPUFEM_INSTANTIATE(V)                                                                \
    template void element_matrices(const Executor&, const ElementData<V>&, V*, V*);         \
    template void assemble_csr(const Executor&, const ElementData<V>&, const index_type*, V*, \
                               V*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)

}  // namespace gpufem::kernels::cuda
