#include "assembly/cuda/any_order_kernels.cuh"
#include "assembly/cuda/element_sinks.cuh"
#include "assembly/element_kernels.hpp"
#include "assembly/element_math.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

constexpr int cell_block = 128;

/// Degree 1: one thread per cell, the whole element matrix in registers (the lower-order
/// terms compiled in or out: LOWER).
template <int NPE, int DIM, bool LOWER, typename V, typename Sink>
__global__ void __launch_bounds__(cell_block) degree1_cell_kernel(ElementArgs<V> a, Sink sink)
{
    const index_type e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= a.num_cells) return;
    V k[NPE * NPE], f[NPE];
    element_stiffness_load<NPE, DIM, LOWER>(a, e, k, f);
#pragma unroll
    for (int i = 0; i < NPE; ++i) {
        sink.template add_row<NPE>(e, i, 0, NPE, k + i * NPE);
        sink.add_load(e, i, f[i]);
    }
}

/// Degree 1 with the register kernel (fastest for its 9 to 64 entries per cell), higher
/// degrees with the two-step geometry + rows kernels.
template <typename V, typename Sink>
void launch_element_kernels(const Executor& exec, const ElementData<V>& data, const Sink& sink)
{
    if (data.num_cells == 0) return;
    if (data.degree >= 2) return launch_any_order(exec, data, sink);
    const ElementArgs<V> a = data.args();
    auto stream = static_cast<cudaStream_t>(exec.stream());
    const unsigned grid = (a.num_cells + cell_block - 1) / cell_block;
    dispatch_element_type(data.type, [&]<int NPE, int DIM>() {
        dispatch_lower_order(a.has_lower_order, [&]<bool LOWER>() {
            degree1_cell_kernel<NPE, DIM, LOWER, V, Sink>
                <<<grid, cell_block, 0, stream>>>(a, sink);
        });
    });
    GPUFEM_CUDA_CHECK_LAUNCH();
}

/// wanted[e] = 1 where cell e has a node in mask, else 0.
__global__ void cells_touching_mask_kernel(index_type cells, int npe, const index_type* __restrict__ nodes,
                                           const std::uint8_t* __restrict__ mask, std::uint8_t* __restrict__ wanted)
{
    const long long e = thread_index();
    if (e >= cells) return;
    std::uint8_t touches = 0;
    for (int k = 0; k < npe && !touches; ++k) touches = mask[nodes[e * npe + k]];
    wanted[e] = touches;
}

}  // namespace

template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe)
{
    launch_element_kernels(exec, data, StoreSink<V>{ke, fe, data.nodes_per_cell});
}

template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs)
{
    launch_element_kernels(exec, data,
                           CsrSink<V>{{data.cells.data(), rhs, data.nodes_per_cell}, cell_to_csr, values});
}

template <typename V, typename O>
void assemble_csr_searched(const Executor& exec, const ElementData<V>& data, const O* row_ptr,
                           const index_type* col_idx, V* values, V* rhs)
{
    launch_element_kernels(exec, data,
                           SearchedCsrSink<V, O>{{data.cells.data(), rhs, data.nodes_per_cell}, row_ptr,
                                                 col_idx, values});
}

template <typename V>
void element_matrices_interleaved(const Executor& exec, const ElementData<V>& data, index_type stride,
                                  bool symmetric, V* matrices, V* rhs)
{
    launch_element_kernels(exec, data,
                           InterleavedSink<V>{{data.cells.data(), rhs, data.nodes_per_cell}, matrices, stride,
                                              symmetric});
}

template <typename V>
void element_residual(const Executor& exec, const ElementData<V>& data, const V* u, const std::uint8_t* mask,
                      double* residual)
{
    ResidualSink<V> sink{data.cells.data(), data.nodes_per_cell, u, mask, residual};
    // The any-order kernels (degree 2 and up) skip the cells without a masked node.
    const bool filter = mask && data.degree >= 2 && data.num_cells > 0;
    DeviceBuffer wanted(exec, filter ? static_cast<std::size_t>(data.num_cells) : 0);
    if (filter) {
        cells_touching_mask_kernel<<<grid_for(data.num_cells), block_size, 0, stream_of(exec)>>>(
            data.num_cells, data.nodes_per_cell, data.cells.data(), mask, wanted.as<std::uint8_t>());
        GPUFEM_CUDA_CHECK_LAUNCH();
        sink.cells_wanted = wanted.as<std::uint8_t>();
    }
    launch_element_kernels(exec, data, sink);
    exec.synchronize();  // wanted is freed on return
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(element_matrices, assemble_csr, element_matrices_interleaved, element_residual)
GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(assemble_csr_searched)

}  // namespace gpufem::kernels::cuda
