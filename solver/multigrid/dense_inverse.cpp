#include "solver/multigrid/dense_inverse.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <utility>

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

/// Gauss-Jordan elimination on [A | I], reduced row by row to [I | A^-1]. Column j takes as
/// pivot the largest entry among the rows not yet used; that row then holds unknown j. A
/// column without a usable pivot is dropped (its unknown is set to 0).
struct GaussJordan {
    std::size_t nn, width;
    std::vector<double> column_scale;
    std::vector<double> m;
    std::vector<char> used;
    std::vector<std::ptrdiff_t> row_of;
    // The right half's non-zeros lie in the columns of the pivot rows used so far (row i
    // starts with its own, and each row operation adds the pivot row's): nn + [lo, hi).
    std::size_t lo, hi = 0;
    std::ptrdiff_t pivot = -1;  ///< the current column's pivot row (-1: the column is dropped)

    explicit GaussJordan(const DenseInverseInput& a)
        : nn(static_cast<std::size_t>(a.rows)), width(2 * nn), m(augmented(a, column_scale)), used(nn, 0),
          row_of(nn, -1), lo(nn)
    {
    }

    /// Columns j.. of the left half and the right half's live columns, for op.
    template <typename Op>
    void live_columns(std::size_t j, Op&& op) const
    {
        // Columns before j are zero in every row but their pivot row (or belong to a dropped
        // unknown, whose column no longer matters): the row operations start at column j.
        for (std::size_t c = j; c < nn; ++c) op(c);
        for (std::size_t c = nn + lo; c < nn + hi; ++c) op(c);
    }

    /// Column j's pivot row chosen and scaled (pivot: -1 when the column is dropped).
    void take_pivot(std::size_t j)
    {
        pivot = -1;
        for (std::size_t i = 0; i < nn; ++i)
            if (!used[i] && (pivot < 0 || std::abs(m[i * width + j]) >
                                              std::abs(m[static_cast<std::size_t>(pivot) * width + j])))
                pivot = static_cast<std::ptrdiff_t>(i);
        if (pivot < 0 || !(std::abs(m[static_cast<std::size_t>(pivot) * width + j]) > dense_pivot_drop * column_scale[j])) {
            pivot = -1;
            return;
        }
        const std::size_t p = static_cast<std::size_t>(pivot);
        used[p] = 1;
        row_of[j] = pivot;
        lo = std::min(lo, p);
        hi = std::max(hi, p + 1);
        double* pivot_row = &m[p * width];
        const double inv = 1 / pivot_row[j];
        live_columns(j, [&](std::size_t c) { pivot_row[c] *= inv; });
    }

    /// Column j eliminated from rows [begin, end) but the pivot row's (after take_pivot).
    void eliminate(std::size_t j, std::size_t begin, std::size_t end)
    {
        const std::size_t p = static_cast<std::size_t>(pivot);
        const double* pivot_row = &m[p * width];
        for (std::size_t i = begin; i < end; ++i) {
            double* row = &m[i * width];
            const double factor = row[j];
            if (i != p && factor != 0) live_columns(j, [&](std::size_t c) { row[c] -= factor * pivot_row[c]; });
        }
    }

    /// The inverse (row-major, nn x nn) read off the right half.
    std::vector<double> inverse() const
    {
        std::vector<double> out(nn * nn, 0.0);
        for (std::size_t j = 0; j < nn; ++j) {
            if (row_of[j] < 0) continue;
            const std::size_t p = static_cast<std::size_t>(row_of[j]);
            for (std::size_t c = 0; c < nn; ++c) out[j * nn + c] = m[p * width + nn + c];
        }
        return out;
    }
};

/// A barrier whose threads spin (yielding after a while) instead of sleeping: the elimination
/// meets twice per column, every few microseconds, where a sleeping wait costs more than the
/// work between.
class SpinBarrier {
public:
    explicit SpinBarrier(int threads) : threads_(threads) {}

    void arrive_and_wait()
    {
        const unsigned generation = generation_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
            arrived_.store(0, std::memory_order_relaxed);
            generation_.fetch_add(1, std::memory_order_release);
            return;
        }
        for (int spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins)
            if (spins > 4096) std::this_thread::yield();
    }

private:
    const int threads_;
    std::atomic<int> arrived_{0};
    std::atomic<unsigned> generation_{0};
};

/// Threads for the row operations of an n-row inverse: one per 64 rows, at most 8 and the
/// host's cores (1: the elimination on the calling thread alone).
int elimination_threads(std::size_t n)
{
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(std::min<std::size_t>({8, cores, std::max<std::size_t>(1, n / 64)}));
}

}  // namespace

std::vector<double> dense_inverse(const DenseInverseInput& a)
{
    return dense_inverse(a, elimination_threads(static_cast<std::size_t>(a.rows)));
}

std::vector<double> dense_inverse(const DenseInverseInput& a, int threads)
{
    GaussJordan gj(a);
    const std::size_t nn = gj.nn;
    if (threads <= 1) {
        for (std::size_t j = 0; j < nn; ++j) {
            gj.take_pivot(j);
            if (gj.pivot >= 0) gj.eliminate(j, 0, nn);
        }
        return gj.inverse();
    }
    // The calling thread chooses each column's pivot; then every thread eliminates it from its
    // own rows (each row's operations as on one thread: the same inverse to the bit).
    SpinBarrier barrier(threads);
    const auto rows_of = [&](int t) {
        return std::pair{nn * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads),
                         nn * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads)};
    };
    const auto eliminate_all = [&](int t) {
        const auto [begin, end] = rows_of(t);
        for (std::size_t j = 0; j < nn; ++j) {
            if (t == 0) gj.take_pivot(j);
            barrier.arrive_and_wait();
            if (gj.pivot >= 0) gj.eliminate(j, begin, end);
            barrier.arrive_and_wait();
        }
    };
    {
        std::vector<std::jthread> helpers;
        for (int t = 1; t < threads; ++t) helpers.emplace_back(eliminate_all, t);
        eliminate_all(0);
    }
    return gj.inverse();
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
