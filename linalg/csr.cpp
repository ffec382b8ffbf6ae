#include "linalg/csr.hpp"

#include <algorithm>

namespace gpufem {

template <typename V, typename O>
RowStats row_stats(const Csr<V, O>& matrix)
{
    RowStats stats;
    if (matrix.rows == 0) return stats;
    const auto ptr = matrix.row_ptr.to_host();
    stats.min = static_cast<index_type>(ptr[1] - ptr[0]);
    for (index_type i = 0; i < matrix.rows; ++i) {
        const auto len = static_cast<index_type>(ptr[i + 1] - ptr[i]);
        stats.min = std::min(stats.min, len);
        stats.max = std::max(stats.max, len);
    }
    stats.mean = static_cast<double>(ptr[matrix.rows]) / matrix.rows;
    return stats;
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
