#include "assembly/csr_pattern.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpufem::kernels::cpu {

CsrPattern build_csr_pattern(const ExecPtr& exec, index_type num_nodes,
                             const Array<index_type>& cells, int npe)
{
    const std::size_t num_cells = cells.size() / npe;
    const std::uint64_t n = static_cast<std::uint64_t>(num_nodes);
    const index_type* conn = cells.data();

    std::vector<std::uint64_t> keys(num_cells * npe * npe);
    for (std::size_t e = 0; e < num_cells; ++e)
        for (int i = 0; i < npe; ++i)
            for (int j = 0; j < npe; ++j)
                keys[(e * npe + i) * npe + j] =
                    static_cast<std::uint64_t>(conn[e * npe + i]) * n + conn[e * npe + j];
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());

    const index_type nnz = checked_index(static_cast<std::int64_t>(keys.size()), "matrix nnz");
    CsrPattern pattern;
    pattern.rows = num_nodes;
    pattern.row_ptr = Array<index_type>(exec, num_nodes + 1);
    pattern.col_idx = Array<index_type>(exec, nnz);
    pattern.cell_to_csr = Array<index_type>(exec, num_cells * npe * npe);
    index_type* ptr = pattern.row_ptr.data();
    index_type* col = pattern.col_idx.data();

    std::fill(ptr, ptr + num_nodes + 1, 0);
    for (index_type k = 0; k < nnz; ++k) {
        ++ptr[keys[k] / n + 1];
        col[k] = static_cast<index_type>(keys[k] % n);
    }
    for (index_type r = 0; r < num_nodes; ++r) ptr[r + 1] += ptr[r];

    index_type* pos = pattern.cell_to_csr.data();
    for (std::size_t e = 0; e < num_cells; ++e)
        for (int i = 0; i < npe; ++i) {
            const index_type row = conn[e * npe + i];
            for (int j = 0; j < npe; ++j) {
                const index_type* found =
                    std::lower_bound(col + ptr[row], col + ptr[row + 1], conn[e * npe + j]);
                pos[(e * npe + i) * npe + j] = static_cast<index_type>(found - col);
            }
        }
    return pattern;
}

}  // namespace gpufem::kernels::cpu
