#pragma once
// Element kernels: declared once, implemented in cpu/element_kernels.cpp and
// cuda/element_kernels.cu on top of element_math.hpp (degree 1, the whole element matrix per
// thread) and element_geometry.hpp (any degree). Both dispatch on ElementData::order.
#include "assembly/element_data.hpp"

namespace gpufem {

namespace kernels::cpu {
/// ke: num_cells * npe * npe (row-major per cell), fe: num_cells * npe. Cells in parallel
/// (OpenMP); degree >= 2 by the readable loop (geometry per point, then each entry).
template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe);
/// Computes each cell's matrix and load and adds them into CSR values (through cell_to_csr,
/// npe*npe positions per cell) and rhs: batches of cells computed in parallel, each scattered
/// sequentially (deterministic).
template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs);
}  // namespace kernels::cpu

namespace kernels::cuda {
/// Same layout as the CPU version. Degree 1: one thread per cell. Degree >= 2: a geometry
/// kernel (one thread per cell and quadrature point) then a row kernel (one thread per cell
/// and local row), see cuda/any_order_kernels.cuh.
template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe);
/// The same kernels, adding into values and rhs with atomicAdd.
template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs);
}  // namespace kernels::cuda

}  // namespace gpufem
