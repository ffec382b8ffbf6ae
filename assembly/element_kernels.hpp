#pragma once
// Element kernels: declared once, implemented in cpu/element_kernels.cpp and
// cuda/element_kernels.cu on top of element_math.hpp.
#include "assembly/element_data.hpp"

namespace gpufem {

namespace kernels::cpu {
/// ke: num_cells * npe * npe (row-major per cell), fe: num_cells * npe.
template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe);
/// Computes each cell's matrix and load and adds them into CSR values (through cell_to_csr,
/// npe*npe positions per cell) and rhs.
template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs);
}  // namespace kernels::cpu

namespace kernels::cuda {
/// One thread per cell; same layout as the CPU version.
template <typename V>
void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke, V* fe);
/// One thread per cell, atomicAdd into values and rhs.
template <typename V>
void assemble_csr(const Executor& exec, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs);
}  // namespace kernels::cuda

}  // namespace gpufem
