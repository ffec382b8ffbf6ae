#include "solver/multigrid/dense_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace gpufem {

template <typename V>
std::vector<double> dense_inverse(const Csr<V>& a)
{
    const index_type n = a.rows;
    if (n > dense_inverse_limit)
        throw std::invalid_argument(fmt::format(
            "AMG: the coarsest level has {} rows, more than the {} a dense solve takes", n,
            dense_inverse_limit));
    const auto ptr = a.row_ptr.to_host();
    const auto col = a.col_idx.to_host();
    const auto val = a.values.to_host();
    const std::size_t nn = static_cast<std::size_t>(n), width = 2 * nn;
    // [A | I], reduced to [I | A^-1] row by row.
    std::vector<double> m(nn * width, 0.0);
    // Each column's largest entry: a pivot is measured against its own column, so that the
    // unknowns of a small coefficient beside a large one (a contrast of 1e12) are kept.
    std::vector<double> column_scale(nn, 0.0);
    for (index_type i = 0; i < n; ++i) {
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            m[static_cast<std::size_t>(i) * width + static_cast<std::size_t>(col[k])] += val[k];
            double& scale = column_scale[static_cast<std::size_t>(col[k])];
            scale = std::max(scale, std::abs(static_cast<double>(val[k])));
        }
        m[static_cast<std::size_t>(i) * width + nn + static_cast<std::size_t>(i)] = 1;
    }
    // Column j takes as pivot the largest entry among the rows not yet used; that row then
    // holds unknown j. A column without a usable pivot is dropped (its unknown is set to 0).
    std::vector<char> used(nn, 0);
    std::vector<std::ptrdiff_t> row_of(nn, -1);
    for (std::size_t j = 0; j < nn; ++j) {
        std::ptrdiff_t pivot = -1;
        for (std::size_t i = 0; i < nn; ++i)
            if (!used[i] && (pivot < 0 || std::abs(m[i * width + j]) >
                                              std::abs(m[static_cast<std::size_t>(pivot) * width + j])))
                pivot = static_cast<std::ptrdiff_t>(i);
        if (pivot < 0 ||
            !(std::abs(m[static_cast<std::size_t>(pivot) * width + j]) > dense_pivot_drop * column_scale[j]))
            continue;
        const std::size_t p = static_cast<std::size_t>(pivot);
        used[p] = 1;
        row_of[j] = pivot;
        // Columns before j are zero in every row but their pivot row (or belong to a dropped
        // unknown, whose column no longer matters): the row operations start at column j. One
        // thread: a parallel region per column cost more than the work at these sizes.
        const double inv = 1 / m[p * width + j];
        for (std::size_t c = j; c < width; ++c) m[p * width + c] *= inv;
        for (std::size_t i = 0; i < nn; ++i) {
            const double factor = m[i * width + j];
            if (i == p || factor == 0) continue;
            for (std::size_t c = j; c < width; ++c) m[i * width + c] -= factor * m[p * width + c];
        }
    }
    std::vector<double> inverse(nn * nn, 0.0);
    for (std::size_t j = 0; j < nn; ++j) {
        if (row_of[j] < 0) continue;
        const std::size_t p = static_cast<std::size_t>(row_of[j]);
        for (std::size_t c = 0; c < nn; ++c) inverse[j * nn + c] = m[p * width + nn + c];
    }
    return inverse;
}

template std::vector<double> dense_inverse(const Csr<float>&);
template std::vector<double> dense_inverse(const Csr<double>&);

}  // namespace gpufem
