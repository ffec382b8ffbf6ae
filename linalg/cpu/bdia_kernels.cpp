// CPU reference for the bDIA layout (linalg/bdia.hpp): slab bands, fill, SpMV.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include <unistd.h>

#include "linalg/bdia.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void bdia_slab_bands(const Executor&, const Csr<V>& a, index_type* offset, index_type* width,
                     std::int64_t* slab_ptr, index_type* stats)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const index_type slabs = (a.rows + bdia_slab - 1) / bdia_slab;
    stats[0] = 0;
    stats[1] = 0;
    slab_ptr[0] = 0;
    for (index_type s = 0; s < slabs; ++s) {
        // Lowest and highest diagonal (j - i) of the slab's entries; columns are sorted, so
        // each row's first and last entries are its extremes.
        index_type lo = INT_MAX, hi = INT_MIN;
        const index_type end = std::min<index_type>(a.rows, (s + 1) * bdia_slab);
        for (index_type i = s * bdia_slab; i < end; ++i) {
            if (ptr[i] == ptr[i + 1]) continue;
            lo = std::min(lo, col[ptr[i]] - i);
            hi = std::max(hi, col[ptr[i + 1] - 1] - i);
        }
        if (lo > hi) {  // only empty rows
            offset[s] = 0;
            width[s] = 0;
        } else {
            offset[s] = lo;
            width[s] = hi - lo + 1;
            stats[0] = std::max({stats[0], std::abs(lo), std::abs(hi)});
            stats[1] = std::max(stats[1], width[s]);
        }
        slab_ptr[s + 1] = slab_ptr[s] + std::int64_t{width[s]} * bdia_slab;
    }
}

template <typename V>
void bdia_fill(const Executor&, const Csr<V>& a, Bdia<V>& b)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    std::fill(b.values.data(), b.values.data() + b.values.size(), V(0));
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < a.rows; ++i) {
        const index_type s = i / bdia_slab;
        V* band = b.values.data() + b.slab_ptr.data()[s] + i % bdia_slab;
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            const std::int64_t diagonal = std::int64_t{col[k]} - i - b.offset.data()[s];
            band[diagonal * bdia_slab] = val[k];
        }
    }
}

template <typename V>
void bdia_spmv(const Executor&, const Bdia<V>& a, V alpha, const V* x, V beta, V* y, std::size_t)
{
    const index_type slabs = a.slabs();
#pragma omp parallel for schedule(static)
    for (index_type s = 0; s < slabs; ++s) {
        const index_type offset = a.offset.data()[s];
        const index_type width = a.width.data()[s];
        const index_type end = std::min<index_type>(a.rows, (s + 1) * bdia_slab);
        for (index_type i = s * bdia_slab; i < end; ++i) {
            const V* band = a.values.data() + a.slab_ptr.data()[s] + i % bdia_slab;
            V sum = 0;
            for (index_type k = 0; k < width; ++k) {
                const std::int64_t j = std::int64_t{i} + offset + k;
                if (j >= 0 && j < a.rows) sum += band[std::int64_t{k} * bdia_slab] * x[j];
            }
            y[i] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[i];
        }
    }
}

std::size_t bdia_available_bytes(const Executor&)
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return SIZE_MAX;  // unknown: do not refuse
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size) / 2;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(bdia_slab_bands, bdia_fill, bdia_spmv)

}  // namespace gpufem::kernels::cpu
