#include "solver/multigrid/dense_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace gpufem {

template <typename V>
DenseInverseInput dense_inverse_input(const Csr<V>& a)
{
    if (a.rows > dense_inverse_limit)
        throw std::invalid_argument(fmt::format(
            "AMG: the coarsest level has {} rows, more than the {} a dense solve takes", a.rows,
            dense_inverse_limit));
    DenseInverseInput out;
    out.rows = a.rows;
    out.row_ptr = a.row_ptr.to_host();
    out.col_idx = a.col_idx.to_host();
    const auto values = a.values.to_host();
    out.values.assign(values.begin(), values.end());
    return out;
}

namespace {

/// [A | I] of a's entries, row-major (n rows of 2n), and each column's largest entry: a pivot
/// is measured against its own column, so that the unknowns of a small coefficient beside a
/// large one (a contrast of 1e12) are kept.
std::vector<double> augmented(const DenseInverseInput& a, std::vector<double>& column_scale)
{
    const std::size_t nn = static_cast<std::size_t>(a.rows), width = 2 * nn;
    std::vector<double> m(nn * width, 0.0);
    column_scale.assign(nn, 0.0);
    for (index_type i = 0; i < a.rows; ++i) {
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const auto c = static_cast<std::size_t>(a.col_idx[k]);
            m[static_cast<std::size_t>(i) * width + c] += a.values[k];
            column_scale[c] = std::max(column_scale[c], std::abs(a.values[k]));
        }
        m[static_cast<std::size_t>(i) * width + nn + static_cast<std::size_t>(i)] = 1;
    }
    return m;
}

}  // namespace

std::vector<double> dense_inverse(const DenseInverseInput& a)
{
    const std::size_t nn = static_cast<std::size_t>(a.rows), width = 2 * nn;
    std::vector<double> column_scale;
    std::vector<double> m = augmented(a, column_scale);  // reduced to [I | A^-1] row by row
    // Column j takes as pivot the largest entry among the rows not yet used; that row then
    // holds unknown j. A column without a usable pivot is dropped (its unknown is set to 0).
    std::vector<char> used(nn, 0);
    std::vector<std::ptrdiff_t> row_of(nn, -1);
    // The right half's non-zeros lie in the columns of the pivot rows used so far (row i
    // starts with its own, and each row operation adds the pivot row's): nn + [lo, hi).
    std::size_t lo = nn, hi = 0;
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
        lo = std::min(lo, p);
        hi = std::max(hi, p + 1);
        // Columns before j are zero in every row but their pivot row (or belong to a dropped
        // unknown, whose column no longer matters): the row operations start at column j. One
        // thread: a parallel region per column cost more than the work at these sizes.
        const auto live_columns = [&](auto&& op) {
            for (std::size_t c = j; c < nn; ++c) op(c);
            for (std::size_t c = nn + lo; c < nn + hi; ++c) op(c);
        };
        double* pivot_row = &m[p * width];
        const double inv = 1 / pivot_row[j];
        live_columns([&](std::size_t c) { pivot_row[c] *= inv; });
        for (std::size_t i = 0; i < nn; ++i) {
            double* row = &m[i * width];
            const double factor = row[j];
            if (i != p && factor != 0) live_columns([&](std::size_t c) { row[c] -= factor * pivot_row[c]; });
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

template <typename V>
std::vector<double> dense_inverse(const Csr<V>& a)
{
    return dense_inverse(dense_inverse_input(a));
}

template std::vector<double> dense_inverse(const Csr<float>&);
template std::vector<double> dense_inverse(const Csr<double>&);
template DenseInverseInput dense_inverse_input(const Csr<float>&);
template DenseInverseInput dense_inverse_input(const Csr<double>&);

}  // namespace gpufem
