#pragma once
// The CSR sparsity pattern of a finite-element matrix and the map from each cell's local
// (i, j) entry to its position in the CSR arrays.
#include "linalg/array.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Pattern of an n x n FE matrix (one entry per pair of nodes sharing a cell).
struct CsrPattern {
    index_type rows = 0;
    Array<index_type> row_ptr;      ///< rows + 1
    Array<index_type> col_idx;      ///< sorted within each row
    Array<index_type> cell_to_csr;  ///< cells * npe * npe: CSR position of local entry (i, j)
    std::size_t nnz() const { return col_idx.size(); }
};

#define GPUFEM_CSR_PATTERN_KERNELS(PREFIX, BODY)                                            \
    /** The pattern of cells (nodes_per_cell nodes each) on exec. cpu: pairs (row, col) of   \
        every cell, sorted and made unique (std::sort), row offsets by counting, positions   \
        by binary search within rows. cuda: 64-bit keys row*n+col, CUB radix sort and        \
        unique, row offsets by binary search (lower bound) of each row start, positions by   \
        binary search within rows. */                                                        \
    PREFIX CsrPattern build_csr_pattern(const ExecPtr& exec, index_type num_nodes,           \
                                        const Array<index_type>& cells,                      \
                                        int nodes_per_cell) BODY

GPUFEM_DECLARE_PLAIN_KERNELS(GPUFEM_CSR_PATTERN_KERNELS)

/// Builds the pattern on the executor that holds cells.
CsrPattern build_csr_pattern(index_type num_nodes, const Array<index_type>& cells,
                             int nodes_per_cell);

}  // namespace gpufem
