#pragma once
// CSR (compressed sparse row) matrix and its statistics.
#include <cstddef>
#include <cstdint>

#include "linalg/array.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// A square or rectangular sparse matrix in CSR form; all arrays on one executor. O: the type
/// of the row offsets (index_type; wide_offset_type for a matrix of more than 2^31 - 1
/// entries, see WideCsr).
template <typename V, typename O = index_type>
struct Csr {
    index_type rows = 0;
    index_type cols = 0;
    Array<O> row_ptr;           ///< rows + 1 offsets into col_idx / values
    Array<index_type> col_idx;  ///< column of each stored entry, sorted within a row
    Array<V> values;            ///< value of each stored entry

    std::size_t nnz() const { return col_idx.size(); }
    const ExecPtr& executor() const { return values.executor(); }
    /// Bytes held by the three arrays.
    std::size_t bytes_stored() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
    /// A copy on another executor.
    Csr clone_to(ExecPtr exec) const
    {
        return Csr{rows, cols, row_ptr.clone_to(exec), col_idx.clone_to(exec),
                   values.clone_to(exec)};
    }
};

/// A CSR matrix with 64-bit row offsets and 32-bit columns: a matrix of more than 2^31 - 1
/// stored entries (3D Q1 at 100M unknowns has 2.7e9). Only some formats take it (csr).
template <typename V>
using WideCsr = Csr<V, wide_offset_type>;

/// Row-length statistics of a CSR matrix (entries per row).
struct RowStats {
    index_type min = 0;
    double mean = 0.0;
    index_type max = 0;
};

/// Computes min / mean / max stored entries per row where the matrix is (csr_row_stats).
template <typename V, typename O>
RowStats row_stats(const Csr<V, O>& matrix);

/// Minimal bytes one y = A x must move through memory: row_ptr, col_idx and values once,
/// x once (cols entries) and y written once (rows entries); y read too when beta != 0.
template <typename V, typename O>
std::size_t csr_spmv_min_bytes(const Csr<V, O>& matrix, bool reads_y);

}  // namespace gpufem
