// CUDA element Galerkin kernel (assembly/element_galerkin_kernels.hpp).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "assembly/element_galerkin_access.hpp"
#include "assembly/element_galerkin_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

constexpr int block_size = 256;
/// Dynamic shared memory a block may use without opting in.
constexpr std::size_t shared_limit = 48 * 1024;

/// A block takes `per_block` consecutive cells (the cell index fastest among its threads, so
/// the lma format's interleaved matrices are read coalesced): their Dirichlet flags into
/// shared memory, then, `width` coarse columns b at a time, K_e P of the eliminated matrices
/// on those columns (Dirichlet rows and columns zero but the diagonal; npe x width per cell,
/// npe^2 width products) and P^T (K_e P) on them (npe ncl width products), added atomically
/// (cells share coarse entries). Elements: CellMajorElements or StoredElements.
template <typename V, typename Elements>
__global__ void element_galerkin_kernel(index_type cells, int npe, int ncl, int width, int per_block, Elements k,
                                        const V* __restrict__ projections, CellCoarsening coarsening,
                                        const index_type* __restrict__ cell_to_csr,
                                        V* __restrict__ values)
{
    extern __shared__ unsigned char shared[];
    V* kp = reinterpret_cast<V*>(shared);  // [i][b - b0][cell of the block]
    std::uint8_t* fixed = shared + static_cast<std::size_t>(npe) * width * per_block * sizeof(V);
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * per_block;
    const int here = static_cast<int>(min(static_cast<std::int64_t>(per_block), cells - first));
    for (int t = threadIdx.x; t < npe * per_block; t += blockDim.x) {
        const int c = t % per_block;
        fixed[t] = c < here && k.fixed(first + c, t / per_block);
    }
    for (int b0 = 0; b0 < ncl; b0 += width) {
        const int w = min(width, ncl - b0);
        __syncthreads();  // the flags are in; the previous columns' products have read kp
        for (int t = threadIdx.x; t < npe * w * per_block; t += blockDim.x) {
            const int c = t % per_block, i = t / per_block / w, b = b0 + t / per_block % w;
            V sum = 0;
            if (c < here) {
                const std::int64_t e = first + c;
                const V* p = projections + static_cast<std::int64_t>(coarsening.child_of(e)) * npe * ncl;
                if (fixed[i * per_block + c]) {
                    sum = k.entry(e, i, i) * p[i * ncl + b];
                } else {
                    for (int j = 0; j < npe; ++j) {
                        const V pjb = p[j * ncl + b];
                        if (pjb != V(0) && !fixed[j * per_block + c]) sum += k.entry(e, i, j) * pjb;
                    }
                }
            }
            kp[t] = sum;
        }
        __syncthreads();
        for (int t = threadIdx.x; t < ncl * w * per_block; t += blockDim.x) {
            const int c = t % per_block, ab = t / per_block, a = ab / w, b = ab % w;
            if (c >= here) continue;
            const V* p = projections + static_cast<std::int64_t>(coarsening.child_of(first + c)) * npe * ncl;
            V sum = 0;
            for (int i = 0; i < npe; ++i) {
                const V pia = p[i * ncl + a];
                if (pia != V(0)) sum += pia * kp[(i * w + b) * per_block + c];
            }
            atomicAdd(values + cell_to_csr[coarsening.coarse_cell(first + c) * ncl * ncl + a * ncl + b0 + b], sum);
        }
    }
}

template <typename V, typename Elements>
void launch_element_galerkin(const Executor& exec, index_type cells, int npe, int ncl, const Elements& k,
                             const V* p, const CellCoarsening& coarsening, const index_type* cell_to_csr,
                             V* values)
{
    if (cells == 0) return;
    // All of a cell's coarse columns at once where shared memory holds them, with enough cells
    // per block for its threads to have work; otherwise a cell a block, as many columns at a
    // time as fit (large elements: hexahedra of degree 5 to 8 under degree 3 or 4).
    const std::size_t column = static_cast<std::size_t>(npe) * sizeof(V);
    if (column + npe > shared_limit)
        throw std::invalid_argument("element Galerkin product: an element of " + std::to_string(npe) +
                                    " nodes needs more shared memory than a block has");
    const int width = static_cast<int>(std::min<std::size_t>(ncl, (shared_limit - npe) / column));
    const std::size_t per_cell = column * width + npe;
    const std::size_t by_threads = 1024 / (static_cast<std::size_t>(npe) * ncl);
    const int per_block = width < ncl ? 1
                                      : static_cast<int>(std::max<std::size_t>(
                                            1, std::min<std::size_t>(shared_limit / per_cell, by_threads)));
    const std::int64_t blocks = (static_cast<std::int64_t>(cells) + per_block - 1) / per_block;
    element_galerkin_kernel<V><<<static_cast<unsigned>(blocks), block_size, per_cell * per_block,
                                 static_cast<cudaStream_t>(exec.stream())>>>(cells, npe, ncl, width, per_block, k,
                                                                             p, coarsening, cell_to_csr, values);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename V>
void element_galerkin_add_stored(const Executor& exec, index_type cells, const LmaArgs<V>& stored,
                                 int ncl, const V* p, const CellCoarsening& coarsening,
                                 const index_type* cell_to_csr, V* values)
{
    launch_element_galerkin(exec, cells, stored.npe, ncl, StoredElements<V>{stored}, p, coarsening, cell_to_csr,
                            values);
}

template <typename V>
void element_galerkin_add(const Executor& exec, index_type cells, int npe, int ncl, const V* ke,
                          const index_type* cell_nodes, const std::uint8_t* mask, const V* p,
                          const CellCoarsening& coarsening, const index_type* cell_to_csr, V* values)
{
    launch_element_galerkin(exec, cells, npe, ncl, CellMajorElements<V>{ke, cell_nodes, mask, npe}, p, coarsening,
                            cell_to_csr, values);
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(element_galerkin_add, element_galerkin_add_stored)

}  // namespace gpufem::kernels::cuda
