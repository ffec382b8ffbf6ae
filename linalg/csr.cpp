#include "linalg/csr.hpp"
#include "linalg/csr_kernels.hpp"

#include <algorithm>

namespace gpufem {

template <typename V, typename O>
RowStats row_stats(const Csr<V, O>& matrix)
{
    if (matrix.rows == 0) return {};
    const Executor& exec = *matrix.executor();
    return GPUFEM_DISPATCH(exec, csr_row_stats(exec, matrix));
}

template <typename V, typename O>
std::size_t csr_spmv_min_bytes(const Csr<V, O>& matrix, bool reads_y)
{
    return matrix.bytes_stored() + static_cast<std::size_t>(matrix.cols) * sizeof(V) +
           static_cast<std::size_t>(matrix.rows) * sizeof(V) * (reads_y ? 2 : 1);
}

#define GPUFEM_INSTANTIATE(V, O)                    \
    template RowStats row_stats(const Csr<V, O>&); \
    template std::size_t csr_spmv_min_bytes(const Csr<V, O>&, bool);
GPUFEM_INSTANTIATE(float, index_type)
GPUFEM_INSTANTIATE(double, index_type)
GPUFEM_INSTANTIATE(float, wide_offset_type)
GPUFEM_INSTANTIATE(double, wide_offset_type)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
