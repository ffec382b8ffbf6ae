// CPU reference for the symmetric permutation of CSR matrices and of vectors.
#include <algorithm>
#include <utility>
#include <vector>

#include "linalg/reordering_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void permute_symmetric(const Executor&, const Csr<V>& a, const index_type* perm, index_type* b_ptr,
                       index_type* b_col, V* b_val)
{
    const index_type n = a.rows;
    const index_type* a_ptr = a.row_ptr.data();
    const index_type* a_col = a.col_idx.data();
    const V* a_val = a.values.data();

    // inverse[old] = new
    std::vector<index_type> inverse(n);
    for (index_type i = 0; i < n; ++i) inverse[perm[i]] = i;

    // Row lengths in the new order, then their prefix sum.
    b_ptr[0] = 0;
    for (index_type i = 0; i < n; ++i) b_ptr[i + 1] = b_ptr[i] + (a_ptr[perm[i] + 1] - a_ptr[perm[i]]);

    // Copy each row, relabel its columns and sort them (with their values).
#pragma omp parallel
    {
        std::vector<std::pair<index_type, V>> row;
#pragma omp for schedule(dynamic, 256)
        for (index_type i = 0; i < n; ++i) {
            const index_type old = perm[i];
            row.clear();
            for (index_type k = a_ptr[old]; k < a_ptr[old + 1]; ++k)
                row.emplace_back(inverse[a_col[k]], a_val[k]);
            std::sort(row.begin(), row.end(),
                      [](const auto& l, const auto& r) { return l.first < r.first; });
            index_type out = b_ptr[i];
            for (const auto& [c, v] : row) {
                b_col[out] = c;
                b_val[out] = v;
                ++out;
            }
        }
    }
}

template <typename V>
void permute_vector(const Executor&, index_type n, const index_type* perm, const V* x, V* y,
                    bool inverse)
{
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < n; ++i) {
        if (inverse)
            y[perm[i]] = x[i];
        else
            y[i] = x[perm[i]];
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(permute_symmetric, permute_vector)

}  // namespace gpufem::kernels::cpu
