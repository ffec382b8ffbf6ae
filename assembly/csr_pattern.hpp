#pragma once
// The CSR sparsity pattern of a finite-element matrix and the map from each cell's local
// (i, j) entry to its position in the CSR arrays.
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include "linalg/array.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
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

/// Pattern of an n x n FE matrix past 2^31 - 1 entries: 64-bit row offsets, 32-bit columns,
/// no cell-to-CSR map (100M hexahedra would need 51 GB for it; the assembly searches each
/// entry's row instead).
struct WideCsrPattern {
    index_type rows = 0;
    Array<wide_offset_type> row_ptr;  ///< rows + 1
    Array<index_type> col_idx;        ///< sorted within each row
    std::size_t nnz() const { return col_idx.size(); }
};

/// The row offsets a pattern gets.
enum class PatternOffsets {
    narrow,  ///< 32-bit; std::overflow_error (checked_pattern_nnz) past 2^31 - 1 entries
    fit,     ///< 32-bit while its entries fit them, else 64-bit
    wide,    ///< 64-bit
};

/// A pattern with 32-bit offsets (and positions) or with 64-bit offsets.
using AnyCsrPattern = std::variant<CsrPattern, WideCsrPattern>;

/// total, the pattern's counted non-zeros, as the CSR's 32-bit offsets hold it; throws
/// std::overflow_error saying so, and what to use instead, when it does not fit.
inline index_type checked_pattern_nnz(long long total)
{
    if (total > std::numeric_limits<index_type>::max())
        throw std::overflow_error("the matrix has " + std::to_string(total) +
                                  " non-zeros, past the 2,147,483,647 that gpufem's CSR holds (32-bit row "
                                  "offsets; every assembled format is built from it); use format: lma "
                                  "(matrix-free) with preconditioner jacobi, none, or pmg (at degree >= 2, "
                                  "on a generated grid or on a mesh refined by gpufem), or a coarser mesh");
    return checked_index(total, "non-zeros of the matrix");
}

#define GPUFEM_KERNEL_LIST "assembly/csr_pattern_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Builds the pattern with 32-bit offsets and positions on the executor that holds cells;
/// std::overflow_error past 2^31 - 1 entries.
CsrPattern build_csr_pattern(index_type num_nodes, const Array<index_type>& cells,
                             int nodes_per_cell);

/// build_any_csr_pattern on the executor that holds cells: 64-bit offsets when wide or
/// when the entries pass 2^31 - 1, else 32-bit offsets, with cell_to_csr when positions (an
/// assembly that searches each entry's row, e.g. a mesh of several cell types, needs none).
AnyCsrPattern build_any_csr_pattern(index_type num_nodes, const Array<index_type>& cells,
                                    int nodes_per_cell, bool wide, bool positions = true);

}  // namespace gpufem
