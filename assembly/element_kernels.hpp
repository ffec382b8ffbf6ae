#pragma once
// Element kernels: declared once, implemented in cpu/element_kernels.cpp and
// cuda/element_kernels.cu on top of element_math.hpp (degree 1, the whole element matrix per
// thread) and element_geometry.hpp (any degree). Both dispatch on ElementData::order.
#include "assembly/element_data.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// Element kernels. Layout: ke num_cells * npe * npe (row-major per cell), fe num_cells * npe.
#define GPUFEM_ELEMENT_KERNELS(V, PREFIX, BODY)                                              \
    /** Every cell's element matrix ke and load fe. cpu: cells in parallel (OpenMP); degree  \
        >= 2 by the readable loop (geometry per point, then each entry). cuda: degree 1 one  \
        thread per cell; degree >= 2 a geometry kernel (one thread per cell and quadrature   \
        point) then a row kernel (one thread per cell and local row), see                    \
        cuda/any_order_kernels.cuh. */                                                       \
    PREFIX void element_matrices(const Executor& exec, const ElementData<V>& data, V* ke,    \
                                 V* fe) BODY                                                 \
    /** Computes each cell's matrix and load and adds them into CSR values (through          \
        cell_to_csr, npe*npe positions per cell) and rhs. cpu: batches of cells computed in  \
        parallel, each scattered sequentially (deterministic). cuda: the same kernels as     \
        element_matrices, adding with atomicAdd. */                                          \
    PREFIX void assemble_csr(const Executor& exec, const ElementData<V>& data,               \
                             const index_type* cell_to_csr, V* values, V* rhs) BODY          \
    /** assemble_csr without a cell_to_csr map: each entry (i, j) finds column j in row i by  \
        binary search (col_idx sorted within rows): for matrices with 64-bit row offsets     \
        (past 2^31 - 1 entries, where the map would be as large as the matrix) and for the   \
        cells of one type of a mesh of several. cpu: as assemble_csr. cuda: the same kernels, \
        adding with atomicAdd. */                                                            \
    PREFIX void assemble_csr_searched(const Executor& exec, const ElementData<V>& data,      \
                                      const index_type* row_ptr, const index_type* col_idx,  \
                                      V* values, V* rhs) BODY                                \
    /** The same into 64-bit row offsets. */                                                 \
    PREFIX void assemble_csr_searched(const Executor& exec, const ElementData<V>& data,      \
                                      const wide_offset_type* row_ptr,                       \
                                      const index_type* col_idx, V* values, V* rhs) BODY     \
    /** Every cell's element matrix straight into the lma format's interleaved layout with  \
        the cells in their own order: entry k of cell e at matrices[k stride + e], k over    \
        the row-major matrix or, symmetric, its upper triangle packed by rows                \
        (lma_packed_index); slots past the cells are left as they are. Loads added into rhs  \
        at the cells' nodes. No cell-major copy of the matrices (100M hexahedra: 52 GB).     \
        cpu: batches of cells computed in parallel, stored, loads added in cell order. cuda: \
        the element_matrices kernels with an interleaving sink, loads by atomicAdd. */       \
    PREFIX void element_matrices_interleaved(const Executor& exec, const ElementData<V>& data, \
                                             index_type stride, bool symmetric, V* matrices,  \
                                             V* rhs) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_ELEMENT_KERNELS)

}  // namespace gpufem
