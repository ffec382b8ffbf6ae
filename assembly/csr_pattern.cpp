#include "assembly/csr_pattern.hpp"

namespace gpufem {

CsrPattern build_csr_pattern(index_type num_nodes, const Array<index_type>& cells,
                             int nodes_per_cell)
{
    const ExecPtr& exec = cells.executor();
    return std::get<CsrPattern>(GPUFEM_DISPATCH(
        *exec, build_any_csr_pattern(exec, num_nodes, cells, nodes_per_cell, PatternOffsets::narrow, true)));
}

AnyCsrPattern build_any_csr_pattern(index_type num_nodes, const Array<index_type>& cells,
                                    int nodes_per_cell, bool wide, bool positions)
{
    const ExecPtr& exec = cells.executor();
    return GPUFEM_DISPATCH(*exec, build_any_csr_pattern(exec, num_nodes, cells, nodes_per_cell,
                                                        wide ? PatternOffsets::wide : PatternOffsets::fit, positions));
}

}  // namespace gpufem
