#include "assembly/csr_pattern.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "linalg/cpu/chunked_loops.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// The cells around each node: offsets (num_nodes + 1) and cell numbers, each node's cells in
/// increasing order.
struct NodeCells {
    std::vector<std::int64_t> offsets;
    std::vector<index_type> cells;
};

NodeCells node_cells(index_type num_nodes, const index_type* conn, std::size_t num_cells, int npe)
{
    NodeCells adjacency;
    adjacency.offsets.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
    const std::size_t entries = num_cells * npe;
    for (std::size_t k = 0; k < entries; ++k)
        if (conn[k] >= 0) ++adjacency.offsets[conn[k] + 1];  // -1: a mixed mesh's padding
    for (index_type r = 0; r < num_nodes; ++r) adjacency.offsets[r + 1] += adjacency.offsets[r];
    adjacency.cells.resize(static_cast<std::size_t>(adjacency.offsets.back()));
    std::vector<std::int64_t> cursor(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
    for (std::size_t k = 0; k < entries; ++k)
        if (conn[k] >= 0) adjacency.cells[cursor[conn[k]]++] = static_cast<index_type>(k / npe);
    return adjacency;
}

/// The columns of row r, sorted and unique, into `columns` (the nodes of the cells around r).
void row_columns(index_type r, const NodeCells& adjacency, const index_type* conn, int npe,
                 std::vector<index_type>& columns)
{
    columns.clear();
    for (std::int64_t a = adjacency.offsets[r]; a < adjacency.offsets[r + 1]; ++a) {
        const index_type* nodes = conn + static_cast<std::size_t>(adjacency.cells[a]) * npe;
        columns.insert(columns.end(), nodes, nodes + npe);
    }
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    if (!columns.empty() && columns.front() < 0) columns.erase(columns.begin());  // padding
}

/// The cells around each node and the inclusive sums of the row lengths (num_nodes + 1).
struct RowCounts {
    NodeCells adjacency;
    std::vector<std::int64_t> lengths;
    std::int64_t total() const { return lengths.back(); }
};

RowCounts count_rows(index_type num_nodes, const index_type* conn, std::size_t num_cells, int npe)
{
    RowCounts counts{node_cells(num_nodes, conn, num_cells, npe),
                     std::vector<std::int64_t>(static_cast<std::size_t>(num_nodes) + 1, 0)};
    chunked_for(num_nodes, [&](long long r) {
        thread_local std::vector<index_type> columns;
        row_columns(static_cast<index_type>(r), counts.adjacency, conn, npe, columns);
        counts.lengths[r + 1] = static_cast<std::int64_t>(columns.size());
    });
    for (index_type r = 0; r < num_nodes; ++r) counts.lengths[r + 1] += counts.lengths[r];
    return counts;
}

/// Offsets of type O (index_type only after checked_pattern_nnz) and each row's columns.
template <typename O>
std::pair<Array<O>, Array<index_type>> fill_rows(const ExecPtr& exec, index_type num_nodes,
                                                 const index_type* conn, int npe, const RowCounts& counts)
{
    Array<O> row_ptr(exec, static_cast<std::size_t>(num_nodes) + 1);
    Array<index_type> col_idx(exec, static_cast<std::size_t>(counts.total()));
    O* ptr = row_ptr.data();
    index_type* col = col_idx.data();
    std::transform(counts.lengths.begin(), counts.lengths.end(), ptr,
                   [](std::int64_t v) { return static_cast<O>(v); });
    chunked_for(num_nodes, [&](long long r) {
        thread_local std::vector<index_type> columns;
        row_columns(static_cast<index_type>(r), counts.adjacency, conn, npe, columns);
        std::copy(columns.begin(), columns.end(), col + ptr[r]);
    });
    return {std::move(row_ptr), std::move(col_idx)};
}

/// The narrow pattern with, when positions, the position of each local entry (i, j): binary
/// search of column j in row i.
CsrPattern with_positions(const ExecPtr& exec, index_type num_nodes, const index_type* conn,
                          std::size_t num_cells, int npe, std::pair<Array<index_type>, Array<index_type>> arrays,
                          bool positions)
{
    CsrPattern pattern;
    pattern.rows = num_nodes;
    pattern.row_ptr = std::move(arrays.first);
    pattern.col_idx = std::move(arrays.second);
    if (!positions) return pattern;
    pattern.cell_to_csr = Array<index_type>(exec, num_cells * npe * npe);
    const index_type* ptr = pattern.row_ptr.data();
    const index_type* col = pattern.col_idx.data();
    index_type* pos = pattern.cell_to_csr.data();
    chunked_for(static_cast<long long>(num_cells), [&](long long e) {
        for (int i = 0; i < npe; ++i) {
            const index_type row = conn[e * npe + i];
            for (int j = 0; j < npe; ++j) {
                if (row < 0 || conn[e * npe + j] < 0) {  // padding
                    pos[(e * npe + i) * npe + j] = -1;
                    continue;
                }
                const index_type* found =
                    std::lower_bound(col + ptr[row], col + ptr[row + 1], conn[e * npe + j]);
                pos[(e * npe + i) * npe + j] = static_cast<index_type>(found - col);
            }
        }
    });
    return pattern;
}

}  // namespace

AnyCsrPattern build_any_csr_pattern(const ExecPtr& exec, index_type num_nodes,
                                    const Array<index_type>& cells, int npe, PatternOffsets offsets,
                                    bool positions)
{
    const std::size_t num_cells = cells.size() / npe;
    const index_type* conn = cells.data();
    const RowCounts counts = count_rows(num_nodes, conn, num_cells, npe);
    if (offsets == PatternOffsets::narrow) checked_pattern_nnz(counts.total());
    if (offsets != PatternOffsets::wide && counts.total() <= std::numeric_limits<index_type>::max())
        return with_positions(exec, num_nodes, conn, num_cells, npe,
                              fill_rows<index_type>(exec, num_nodes, conn, npe, counts), positions);
    auto [row_ptr, col_idx] = fill_rows<wide_offset_type>(exec, num_nodes, conn, npe, counts);
    WideCsrPattern pattern;
    pattern.rows = num_nodes;
    pattern.row_ptr = std::move(row_ptr);
    pattern.col_idx = std::move(col_idx);
    return pattern;
}

}  // namespace gpufem::kernels::cpu
