// CPU reference of the smoothed-aggregation kernels (solver/multigrid/amg_kernels.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "linalg/cpu/chunked_loops.hpp"
#include "solver/multigrid/amg_kernels.hpp"

namespace gpufem::kernels::cpu {

void amg_map_columns(const Executor&, std::size_t n, const index_type* map, index_type* columns)
{
    chunked_for(static_cast<long long>(n), [&](long long k) { columns[k] = map[columns[k]]; });
}

void amg_shift_columns(const Executor&, std::size_t n, index_type begin, index_type end, index_type inside,
                       index_type outside, index_type* columns)
{
    chunked_for(static_cast<long long>(n), [&](long long k) {
        columns[k] += columns[k] >= begin && columns[k] < end ? inside : outside;
    });
}

void amg_localize_columns(const Executor&, std::size_t n, index_type first, index_type owned, const index_type* ghosts,
                          index_type count, index_type* columns)
{
    chunked_for(static_cast<long long>(n),
                [&](long long k) { columns[k] = local_column(columns[k], first, owned, ghosts, count); });
}

index_type amg_distinct_values(const Executor&, std::size_t n, const index_type* values, index_type* out)
{
    std::copy(values, values + n, out);
    std::sort(out, out + n);
    return static_cast<index_type>(std::unique(out, out + n) - out);
}

void amg_rebase_offsets(const Executor&, index_type rows, const index_type* ptr, index_type* out)
{
    const index_type base = ptr[0];
    chunked_for(static_cast<long long>(rows) + 1, [&](long long r) { out[r] = ptr[r] - base; });
}

index_type amg_grid_transfer_offsets(const Executor&, GridBox box, int dim, index_type* row_ptr)
{
    const long long rows = box.count();
    chunked_for(rows, [&](long long i) {
        long long f[3];
        box.point(i, f);
        index_type count = 1;
        for (int a = 0; a < dim; ++a) count *= f[a] % 2 ? 2 : 1;
        row_ptr[i + 1] = count;
    });
    row_ptr[0] = 0;
    for (long long i = 0; i < rows; ++i) row_ptr[i + 1] += row_ptr[i];
    return row_ptr[rows];
}

void amg_mis_init(const Executor&, index_type n, const index_type* row_ptr,
                  const std::uint8_t* strong, MisState* state)
{
    chunked_for(n, [&](long long i) {
        bool any = false;
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1] && !any; ++k) any = strong[k] != 0;
        state[i] = any ? MisState::undecided : MisState::isolated;
    });
}

void amg_mis_tuples(const Executor&, index_type n, const MisState* state, std::uint64_t* tuple)
{
    chunked_for(n, [&](long long i) { tuple[i] = mis_tuple(static_cast<index_type>(i), state[i]); });
}

void amg_mis_propagate(const Executor&, index_type n, const index_type* row_ptr,
                       const index_type* col_idx, const std::uint8_t* strong,
                       const std::uint64_t* in, std::uint64_t* out)
{
    chunked_for(n, [&](long long i) {
        std::uint64_t best = in[i];
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (strong[k]) best = std::max(best, in[col_idx[k]]);
        out[i] = best;
    });
}

index_type amg_mis_select(const Executor&, index_type n, MisState* state, const std::uint64_t* own,
                          const std::uint64_t* max2)
{
    const auto sums = chunked_sums<1>(n, [&](long long i, std::array<double, 1>& s) {
        if (state[i] != MisState::undecided) return;
        if (max2[i] == own[i])
            state[i] = MisState::selected;
        else if (mis_tuple_selected(max2[i]))
            state[i] = MisState::excluded;
        else
            s[0] += 1;
    });
    return static_cast<index_type>(sums[0]);
}

index_type amg_aggregate_roots(const Executor&, index_type n, const MisState* state, index_type* agg,
                               index_type* root_of)
{
    index_type roots = 0;
    for (index_type i = 0; i < n; ++i) {
        if (state[i] == MisState::selected) {
            root_of[roots] = i;
            agg[i] = roots++;
        } else {
            agg[i] = state[i] == MisState::isolated ? -2 : -1;
        }
    }
    return roots;
}

index_type amg_aggregate_join(const Executor&, index_type n, const index_type* row_ptr,
                              const index_type* col_idx, const std::uint8_t* strong,
                              const index_type* in, index_type* out)
{
    const auto sums = chunked_sums<1>(n, [&](long long i, std::array<double, 1>& s) {
        const index_type a = joined_aggregate(static_cast<index_type>(i), row_ptr, col_idx, strong, in);
        if (a == -1) s[0] += 1;
        out[i] = a;
    });
    return static_cast<index_type>(sums[0]);
}

index_type amg_tentative_pattern(const Executor&, index_type n, const index_type* agg,
                                 index_type* row_ptr)
{
    row_ptr[0] = 0;
    for (index_type i = 0; i < n; ++i) row_ptr[i + 1] = row_ptr[i] + (agg[i] >= 0 ? 1 : 0);
    return row_ptr[n];
}

void amg_tentative_columns(const Executor&, index_type n, const index_type* agg,
                           const index_type* row_ptr, index_type* col_idx)
{
    chunked_for(n, [&](long long i) {
        if (agg[i] >= 0) col_idx[row_ptr[i]] = agg[i];
    });
}

template <typename V>
void amg_strength(const Executor&, const Csr<V>& a, const V* diag, double theta,
                  std::uint8_t* strong)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    // Each row's strongest coupling first: it counts as strong whatever theta is.
    std::vector<double> strongest(static_cast<std::size_t>(a.rows));
    chunked_for(a.rows, [&](long long i) {
        double best = 0;
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
            if (col[k] != i) best = std::max(best, amg_coupling(val[k], diag[i], diag[col[k]]));
        strongest[i] = best;
    });
    chunked_for(a.rows, [&](long long i) {
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            const index_type j = col[k];
            strong[k] = j != i && amg_is_strong(amg_coupling(val[k], diag[i], diag[j]), theta,
                                                strongest[i], strongest[j]);
        }
    });
}

template <typename V>
index_type amg_jacobi_operator_pattern(const Executor&, const Csr<V>& a, const std::uint8_t* strong,
                                       index_type* s_ptr)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    chunked_for(a.rows, [&](long long i) {
        index_type kept = 0;
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
            kept += amg_kept_entry(static_cast<index_type>(i), col[k], strong, k);
        s_ptr[i + 1] = kept;
    });
    s_ptr[0] = 0;
    for (index_type i = 0; i < a.rows; ++i) s_ptr[i + 1] += s_ptr[i];
    return s_ptr[a.rows];
}

template <typename V>
void amg_jacobi_operator(const Executor&, const Csr<V>& a, const std::uint8_t* strong, const V* dinv, V omega,
                         const index_type* s_ptr, index_type* s_col, V* s_values)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    chunked_for(a.rows, [&](long long i) {
        amg_jacobi_row(static_cast<index_type>(i), ptr[i], ptr[i + 1], col, val, strong, omega * dinv[i],
                       s_col + s_ptr[i], s_values + s_ptr[i]);
    });
}

/// The distinct aggregates of row i (its own and its strong columns', or every column's with
/// strong null), sorted, with P's values (val null: the aggregates only, values 0). A weak
/// column's value counts on the diagonal (the filtered matrix: its row sums kept).
template <typename V>
void prolongator_row(const index_type* ptr, const index_type* col, const V* val,
                     const std::uint8_t* strong, const index_type* agg, const V* dinv, V omega,
                     long long i, std::vector<std::pair<index_type, V>>& row)
{
    row.clear();
    const auto add = [&row](index_type g, V value) {
        for (auto& entry : row)
            if (entry.first == g) {
                entry.second += value;
                return;
            }
        row.emplace_back(g, value);
    };
    if (agg[i] >= 0) add(agg[i], V(1));
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        const index_type g = amg_kept_entry(static_cast<index_type>(i), col[k], strong, k) ? agg[col[k]] : agg[i];
        if (g >= 0) add(g, val ? -omega * dinv[i] * val[k] : V(0));
    }
    std::sort(row.begin(), row.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
}

template <typename V>
index_type amg_prolongator_pattern(const Executor&, const Csr<V>& a, const std::uint8_t* strong,
                                   const index_type* agg, index_type* p_ptr)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
#pragma omp parallel
    {
        std::vector<std::pair<index_type, V>> row;
#pragma omp for schedule(dynamic, 4096)
        for (index_type i = 0; i < a.rows; ++i) {
            prolongator_row(ptr, col, static_cast<const V*>(nullptr), strong, agg,
                            static_cast<const V*>(nullptr), V(0), i, row);
            p_ptr[i + 1] = static_cast<index_type>(row.size());
        }
    }
    p_ptr[0] = 0;
    for (index_type i = 0; i < a.rows; ++i) {
        if (static_cast<long long>(p_ptr[i]) + p_ptr[i + 1] > 2147483647LL)
            throw std::length_error("AMG: a prolongator has more than 2^31 - 1 non-zeros");
        p_ptr[i + 1] += p_ptr[i];
    }
    return p_ptr[a.rows];
}

template <typename V>
void amg_prolongator_fill(const Executor&, const Csr<V>& a, const std::uint8_t* strong,
                          const index_type* agg, const V* dinv, V omega, const index_type* p_ptr,
                          index_type* p_col, V* p_val)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
#pragma omp parallel
    {
        std::vector<std::pair<index_type, V>> row;
#pragma omp for schedule(dynamic, 4096)
        for (index_type i = 0; i < a.rows; ++i) {
            prolongator_row(ptr, col, val, strong, agg, dinv, omega, i, row);
            index_type out = p_ptr[i];
            for (const auto& [g, value] : row) {
                p_col[out] = g;
                p_val[out] = value;
                ++out;
            }
        }
    }
}

template <typename V>
void amg_chebyshev_step(const Executor&, index_type n, const V* b, const V* ax, const V* dinv,
                        V c_d, V c_r, V* d, V* x)
{
    if (ax == nullptr) {
        chunked_for(n, [&](long long i) {
            d[i] = c_r * dinv[i] * b[i];
            x[i] = d[i];
        });
        return;
    }
    chunked_for(n, [&](long long i) {
        d[i] = c_d * d[i] + c_r * dinv[i] * (b[i] - ax[i]);
        x[i] += d[i];
    });
}

template <typename V>
void amg_start_vector(const Executor&, index_type n, V* x)
{
    chunked_for(n, [&](long long i) { x[i] = static_cast<V>(hashed_unit(static_cast<index_type>(i))); });
}

template <typename V>
void amg_lump_into_prolongator(const Executor&, Csr<V>& p, const index_type* agg, const V* dinv, V omega,
                               const V* lumped)
{
    const index_type* ptr = p.row_ptr.data();
    const index_type* col = p.col_idx.data();
    V* val = p.values.data();
    chunked_for(p.rows, [&](long long i) {
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
            if (col[k] == agg[i]) val[k] -= omega * dinv[i] * lumped[i];
    });
}

template <typename V>
void amg_residual(const Executor&, index_type n, const V* b, V* r)
{
    chunked_for(n, [&](long long i) { r[i] = b[i] - r[i]; });
}

template <typename V>
void amg_merge_global_rows(const Executor&, const Csr<V>& local, const Csr<V>& wide, index_type first,
                           index_type* lengths, index_type* columns, V* values)
{
    const index_type *lp = local.row_ptr.data(), *lc = local.col_idx.data();
    const index_type *wp = wide.row_ptr.data(), *wc = wide.col_idx.data();
    const V *lv = local.values.data(), *wv = wide.values.data();
    chunked_for(local.rows, [&](long long i) {
        index_type k = lp[i], w = wp[i], out = lp[i] + wp[i];
        while (k < lp[i + 1] || w < wp[i + 1]) {
            const bool take_local = w == wp[i + 1] || (k < lp[i + 1] && lc[k] + first < wc[w]);
            columns[out] = take_local ? lc[k] + first : wc[w];
            values[out++] = take_local ? lv[k++] : wv[w++];
        }
        lengths[i] = lp[i + 1] - lp[i] + wp[i + 1] - wp[i];
    });
}

template <typename V, typename O>
void amg_join_columns(const Executor&, const Csr<V, O>& left, const Csr<V>& right, index_type shift, O* row_ptr,
                      index_type* columns, V* values)
{
    const O* lp = left.row_ptr.data();
    const index_type *lc = left.col_idx.data(), *rp = right.row_ptr.data(), *rc = right.col_idx.data();
    const V *lv = left.values.data(), *rv = right.values.data();
    chunked_for(static_cast<long long>(left.rows) + 1, [&](long long i) { row_ptr[i] = lp[i] + rp[i]; });
    chunked_for(left.rows, [&](long long i) {
        O out = lp[i] + rp[i];
        for (O k = lp[i]; k < lp[i + 1]; ++k, ++out) columns[out] = lc[k], values[out] = lv[k];
        for (index_type k = rp[i]; k < rp[i + 1]; ++k, ++out) columns[out] = rc[k] + shift, values[out] = rv[k];
    });
}

template <typename V>
void amg_stacked_offsets(const Executor&, const Csr<V>& top, const Csr<V>& bottom, index_type* row_ptr)
{
    const index_type *tp = top.row_ptr.data(), *bp = bottom.row_ptr.data();
    const index_type shift = tp[top.rows];
    chunked_for(static_cast<long long>(top.rows) + 1, [&](long long i) { row_ptr[i] = tp[i]; });
    chunked_for(bottom.rows, [&](long long i) { row_ptr[top.rows + 1 + i] = bp[i + 1] + shift; });
}

template <typename V>
void amg_grid_transfer_entries(const Executor&, GridBox box, int dim, GridLevelView coarse, const index_type* row_ptr,
                               index_type* columns, V* values)
{
    chunked_for(box.count(), [&](long long i) { grid_transfer_row(box, dim, coarse, i, row_ptr, columns, values); });
}

template <typename V>
void amg_dense_matvec(const Executor&, index_type n, const V* m, const V* x, V* y)
{
    chunked_for(n, [&](long long i) {
        double sum = 0;
        const V* row = m + static_cast<std::size_t>(i) * n;
        for (index_type j = 0; j < n; ++j) sum += static_cast<double>(row[j]) * x[j];
        y[i] = static_cast<V>(sum);
    });
}

template <typename V>
Csr<V> amg_spgemm(const Executor&, const Csr<V>& a, const Csr<V>& b, std::size_t)
{
    if (a.cols != b.rows) throw std::invalid_argument("amg_spgemm: inner dimensions differ");
    const ExecPtr& ex = a.executor();
    const index_type* ap = a.row_ptr.data();
    const index_type* ac = a.col_idx.data();
    const V* av = a.values.data();
    const index_type* bp = b.row_ptr.data();
    const index_type* bc = b.col_idx.data();
    const V* bv = b.values.data();
    const index_type n = a.rows;

    // Pass 1: the number of distinct columns of each row of C (a marker per column, per thread).
    std::vector<index_type> counts(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel
    {
        std::vector<index_type> marker(static_cast<std::size_t>(b.cols), -1);
#pragma omp for schedule(dynamic, 1024)
        for (index_type i = 0; i < n; ++i) {
            index_type count = 0;
            for (index_type k = ap[i]; k < ap[i + 1]; ++k)
                for (index_type l = bp[ac[k]]; l < bp[ac[k] + 1]; ++l)
                    if (marker[bc[l]] != i) {
                        marker[bc[l]] = i;
                        ++count;
                    }
            counts[i + 1] = count;
        }
    }
    Csr<V> c{n, b.cols, Array<index_type>(ex, static_cast<std::size_t>(n) + 1), {}, {}};
    index_type* cp = c.row_ptr.data();
    cp[0] = 0;
    for (index_type i = 0; i < n; ++i) {
        if (static_cast<long long>(cp[i]) + counts[i + 1] > 2147483647LL)
            throw std::length_error("AMG: a Galerkin product has more than 2^31 - 1 non-zeros");
        cp[i + 1] = cp[i] + counts[i + 1];
    }
    c.col_idx = Array<index_type>(ex, static_cast<std::size_t>(cp[n]));
    c.values = Array<V>(ex, static_cast<std::size_t>(cp[n]));
    index_type* cc = c.col_idx.data();
    V* cv = c.values.data();

    // Pass 2: accumulate each row in a dense row (sum in the order of a's and b's entries),
    // then write it with sorted columns.
#pragma omp parallel
    {
        std::vector<index_type> slot(static_cast<std::size_t>(b.cols), -1);
        std::vector<std::pair<index_type, V>> row;
#pragma omp for schedule(dynamic, 1024)
        for (index_type i = 0; i < n; ++i) {
            row.clear();
            for (index_type k = ap[i]; k < ap[i + 1]; ++k)
                for (index_type l = bp[ac[k]]; l < bp[ac[k] + 1]; ++l) {
                    const index_type j = bc[l];
                    if (slot[j] < 0) {
                        slot[j] = static_cast<index_type>(row.size());
                        row.emplace_back(j, V(0));
                    }
                    row[static_cast<std::size_t>(slot[j])].second += av[k] * bv[l];
                }
            for (const auto& entry : row) slot[entry.first] = -1;
            std::sort(row.begin(), row.end(),
                      [](const auto& l, const auto& r) { return l.first < r.first; });
            index_type out = cp[i];
            for (const auto& [j, value] : row) {
                cc[out] = j;
                cv[out] = value;
                ++out;
            }
        }
    }
    return c;
}

template <typename V>
Csr<V> amg_transpose(const Executor&, const Csr<V>& a)
{
    const ExecPtr& ex = a.executor();
    const index_type* ap = a.row_ptr.data();
    const index_type* ac = a.col_idx.data();
    const V* av = a.values.data();
    Csr<V> t{a.cols, a.rows, Array<index_type>(ex, static_cast<std::size_t>(a.cols) + 1),
             Array<index_type>(ex, a.nnz()), Array<V>(ex, a.nnz())};
    index_type* tp = t.row_ptr.data();
    std::fill(tp, tp + a.cols + 1, 0);
    for (std::size_t k = 0; k < a.nnz(); ++k) ++tp[ac[k] + 1];
    for (index_type j = 0; j < a.cols; ++j) tp[j + 1] += tp[j];
    std::vector<index_type> next(tp, tp + a.cols);
    for (index_type i = 0; i < a.rows; ++i)  // rows in order: columns of t come out sorted
        for (index_type k = ap[i]; k < ap[i + 1]; ++k) {
            const index_type slot = next[ac[k]]++;
            t.col_idx.data()[slot] = i;
            t.values.data()[slot] = av[k];
        }
    return t;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    amg_strength, amg_jacobi_operator_pattern, amg_jacobi_operator, amg_prolongator_pattern, amg_prolongator_fill,
    amg_chebyshev_step, amg_start_vector, amg_residual, amg_merge_global_rows, amg_stacked_offsets,
    amg_grid_transfer_entries, amg_dense_matvec, amg_spgemm, amg_transpose, amg_lump_into_prolongator)
GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(amg_join_columns)

}  // namespace gpufem::kernels::cpu
