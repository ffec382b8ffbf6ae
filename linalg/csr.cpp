#include "linalg/csr.hpp"

#include <algorithm>

namespace gpufem {

template <typename V>
RowStats row_stats(const Csr<V>& matrix)
{
    RowStats stats;
    if (matrix.rows == 0) return stats;
    const auto ptr = matrix.row_ptr.to_host();
    stats.min = ptr[1] - ptr[0];
    for (index_type i = 0; i < matrix.rows; ++i) {
        const index_type len = ptr[i + 1] - ptr[i];
        stats.min = std::min(stats.min, len);
        stats.max = std::max(stats.max, len);
    }
    stats.mean = static_cast<double>(ptr[matrix.rows]) / matrix.rows;
    return stats;
}

template <typename V>
std::size_t csr_spmv_min_bytes(const Csr<V>& matrix, bool reads_y)
{
    return matrix.bytes_stored() + static_cast<std::size_t>(matrix.cols) * sizeof(V) +
           static_cast<std::size_t>(matrix.rows) * sizeof(V) * (reads_y ? 2 : 1);
}

#define GPUFEM_INSTANTIATE(V)                    \
    template RowStats row_stats(const Csr<V>&); \
    template std::size_t csr_spmv_min_bytes(const Csr<V>&, bool);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
