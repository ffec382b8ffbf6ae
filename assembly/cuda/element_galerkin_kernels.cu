// CUDA element Galerkin kernel (assembly/element_galerkin_kernels.hpp).
#include <cstdint>

#include "assembly/element_galerkin_access.hpp"
#include "assembly/element_galerkin_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;

/// One thread per (cell, a, b): sum_i p_ia sum_j k_ij p_jb over the eliminated matrix
/// (Dirichlet rows and columns zero but the diagonal), added atomically (cells share coarse
/// entries). Elements: CellMajorElements or StoredElements.
template <typename V, typename Elements>
__global__ void element_galerkin_kernel(index_type cells, int npe, int ncl, Elements k,
                                        const V* __restrict__ p,
                                        const index_type* __restrict__ cell_to_csr,
                                        V* __restrict__ values)
{
    const std::int64_t coarse = static_cast<std::int64_t>(ncl) * ncl;
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= cells * coarse) return;
    const std::int64_t e = t / coarse;
    const int a = static_cast<int>((t % coarse) / ncl), b = static_cast<int>(t % ncl);
    V sum = 0;
    for (int i = 0; i < npe; ++i) {
        const V pia = p[i * ncl + a];
        if (pia == V(0)) continue;
        const bool fixed_i = k.fixed(e, i);
        V row = 0;
        for (int j = 0; j < npe; ++j)
            if ((!fixed_i && !k.fixed(e, j)) || i == j) row += k.entry(e, i, j) * p[j * ncl + b];
        sum += pia * row;
    }
    atomicAdd(values + cell_to_csr[t], sum);
}

template <typename V, typename Elements>
void launch_element_galerkin(const Executor& exec, index_type cells, int npe, int ncl, const Elements& k,
                             const V* p, const index_type* cell_to_csr, V* values)
{
    const std::int64_t threads = static_cast<std::int64_t>(cells) * ncl * ncl;
    if (threads == 0) return;
    element_galerkin_kernel<V><<<static_cast<unsigned>((threads + block_size - 1) / block_size),
                                 block_size, 0, static_cast<cudaStream_t>(exec.stream())>>>(
        cells, npe, ncl, k, p, cell_to_csr, values);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename V>
void element_galerkin_add_stored(const Executor& exec, index_type cells, const LmaArgs<V>& stored,
                                 int ncl, const V* p, const index_type* cell_to_csr, V* values)
{
    launch_element_galerkin(exec, cells, stored.npe, ncl, StoredElements<V>{stored}, p, cell_to_csr, values);
}

template <typename V>
void element_galerkin_add(const Executor& exec, index_type cells, int npe, int ncl, const V* ke,
                          const index_type* cell_nodes, const std::uint8_t* mask, const V* p,
                          const index_type* cell_to_csr, V* values)
{
    launch_element_galerkin(exec, cells, npe, ncl, CellMajorElements<V>{ke, cell_nodes, mask, npe}, p,
                            cell_to_csr, values);
}

GPUFEM_INSTANTIATE_KERNELS(GPUFEM_ELEMENT_GALERKIN_KERNELS)

}  // namespace gpufem::kernels::cuda
