#include "solver/multigrid/classical_coarsening.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpufem {

namespace {

/// The CSR arrays of a host matrix, read in place.
template <typename V>
struct HostRows {
    const index_type* ptr;
    const index_type* col;
    const V* val;
    index_type n;
    explicit HostRows(const Csr<V>& a)
        : ptr(a.row_ptr.data()), col(a.col_idx.data()), val(a.values.data()), n(a.rows)
    {
        if (a.executor()->backend() != Backend::cpu)
            throw std::logic_error("classical coarsening reads a host matrix");
    }
    double diagonal(index_type i) const
    {
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
            if (col[k] == i) return static_cast<double>(val[k]);
        return 0.0;
    }
};

/// A fixed pseudo-random number in [0, 1) for point i (splitmix64's finaliser).
double point_fraction(index_type i)
{
    std::uint64_t z = static_cast<std::uint64_t>(i) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// The transpose of the strong pattern: for each point, the points that depend on it.
struct Influences {
    std::vector<index_type> ptr, of;
};

template <typename V>
Influences influences_of(const HostRows<V>& a, const std::vector<std::uint8_t>& strong)
{
    Influences t;
    t.ptr.assign(static_cast<std::size_t>(a.n) + 1, 0);
    for (index_type i = 0; i < a.n; ++i)
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (strong[k]) ++t.ptr[a.col[k] + 1];
    std::partial_sum(t.ptr.begin(), t.ptr.end(), t.ptr.begin());
    t.of.resize(static_cast<std::size_t>(t.ptr.back()));
    std::vector<index_type> fill(t.ptr.begin(), t.ptr.end() - 1);
    for (index_type i = 0; i < a.n; ++i)
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (strong[k]) t.of[fill[a.col[k]]++] = i;
    return t;
}

enum : std::int8_t { undecided = 0, fine = 1, coarse = 2 };

}  // namespace

template <typename V>
std::vector<std::uint8_t> classical_strength(const Csr<V>& a_host, double theta)
{
    const HostRows<V> a(a_host);
    std::vector<std::uint8_t> strong(a_host.nnz(), 0);
#pragma omp parallel for schedule(dynamic, 4096)
    for (index_type i = 0; i < a.n; ++i) {
        const double sign = a.diagonal(i) < 0 ? -1.0 : 1.0;
        double largest = 0;  // the largest coupling of the opposite sign, as a positive number
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (a.col[k] != i) largest = std::max(largest, -sign * static_cast<double>(a.val[k]));
        if (largest <= 0) continue;
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (a.col[k] != i && -sign * static_cast<double>(a.val[k]) >= theta * largest) strong[k] = 1;
    }
    return strong;
}

template <typename V>
CoarseSplitting pmis_splitting(const Csr<V>& a_host, const std::vector<std::uint8_t>& strong)
{
    const HostRows<V> a(a_host);
    const Influences t = influences_of(a, strong);
    const auto n = static_cast<std::size_t>(a.n);
    std::vector<double> measure(n);
    std::vector<std::int8_t> state(n, undecided);
    std::vector<index_type> open;  // the undecided points
    for (index_type i = 0; i < a.n; ++i) {
        const index_type influenced = t.ptr[i + 1] - t.ptr[i];
        measure[i] = influenced + point_fraction(i);
        if (influenced == 0)
            state[i] = fine;
        else
            open.push_back(i);
    }
    // j outranks i: a larger measure, ties (never seen, but possible) broken by the index, so
    // each round's best undecided point is chosen and the rounds end.
    const auto outranks = [&](index_type j, index_type i) {
        return state[j] == undecided && (measure[j] > measure[i] || (measure[j] == measure[i] && j > i));
    };
    CoarseSplitting s;
    std::vector<index_type> chosen;
    while (!open.empty()) {
        ++s.rounds;
        chosen.clear();
        for (index_type i : open) {
            bool best = true;
            for (index_type k = a.ptr[i]; k < a.ptr[i + 1] && best; ++k)
                if (strong[k] && a.col[k] != i && outranks(a.col[k], i)) best = false;
            for (index_type k = t.ptr[i]; k < t.ptr[i + 1] && best; ++k)
                if (t.of[k] != i && outranks(t.of[k], i)) best = false;
            if (best) chosen.push_back(i);
        }
        for (index_type c : chosen) state[c] = coarse;
        for (index_type c : chosen)
            for (index_type k = t.ptr[c]; k < t.ptr[c + 1]; ++k)
                if (state[t.of[k]] == undecided) state[t.of[k]] = fine;
        std::erase_if(open, [&](index_type i) { return state[i] != undecided; });
    }
    s.coarse_of.assign(n, -1);
    for (index_type i = 0; i < a.n; ++i)
        if (state[i] == coarse) s.coarse_of[i] = s.count++;
    return s;
}

namespace {

/// Each row's couplings to C points (the only columns interpolation reaches), made once per
/// level: the C point's coarse number, the value if of the opposite sign to the row's diagonal
/// (else 0), and whether it is strong. The interpolation's inner loops run over these lists.
struct CoarseCouplings {
    std::vector<index_type> ptr, coarse;
    std::vector<double> opposite;
    std::vector<std::uint8_t> strong;
    std::vector<double> sign;  ///< of each row's diagonal

    template <typename V>
    CoarseCouplings(const HostRows<V>& a, const std::vector<std::uint8_t>& strong_entries, const CoarseSplitting& s)
        : ptr(static_cast<std::size_t>(a.n) + 1, 0), sign(static_cast<std::size_t>(a.n))
    {
        for (index_type i = 0; i < a.n; ++i) {
            sign[i] = a.diagonal(i) < 0 ? -1.0 : 1.0;
            for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
                if (a.col[k] == i || s.coarse_of[a.col[k]] < 0) continue;
                const double v = static_cast<double>(a.val[k]);
                coarse.push_back(s.coarse_of[a.col[k]]);
                opposite.push_back(sign[i] * v < 0 ? v : 0.0);
                strong.push_back(strong_entries[k]);
            }
            ptr[i + 1] = static_cast<index_type>(coarse.size());
        }
    }
};

/// The weights of one F row of the extended+i interpolation, before truncation.
template <typename V>
class ExtendedRow {
public:
    ExtendedRow(const HostRows<V>& a, const std::vector<std::uint8_t>& strong, const CoarseSplitting& s,
                const CoarseCouplings& c)
        : a_(a), strong_(strong), s_(s), c_(c), slot_(static_cast<std::size_t>(s.count), -1)
    {
    }

    /// Fills columns() (coarse numbers) and weights() for F point i; both empty when i
    /// interpolates from nothing or its lumped diagonal vanishes against a_ii.
    void make(index_type i)
    {
        clear();
        gather_coarse(i);
        if (cols_.empty()) return;
        double diag = 0, a_ii = 0;
        for (index_type k = a_.ptr[i]; k < a_.ptr[i + 1]; ++k) {
            const index_type m = a_.col[k];
            const double a_im = static_cast<double>(a_.val[k]);
            const index_type at = s_.coarse_of[m] >= 0 ? slot_[s_.coarse_of[m]] : -1;
            if (m == i)
                a_ii += a_im;
            else if (at >= 0)
                w_[at] += a_im;
            else if (strong_[k] && s_.coarse_of[m] < 0)
                diag += distribute(i, m, a_im);
            else
                diag += a_im;  // weak and not interpolated from: lumped onto the diagonal
        }
        diag += a_ii;
        if (!(std::abs(diag) > 1e-12 * std::abs(a_ii))) {
            clear();
            return;
        }
        for (double& w : w_) w = -w / diag;
    }
    const std::vector<index_type>& columns() const { return cols_; }
    const std::vector<double>& weights() const { return w_; }

private:
    void clear()
    {
        for (index_type j : cols_) slot_[j] = -1;
        cols_.clear();
        w_.clear();
    }
    void add_column(index_type j)
    {
        if (slot_[j] >= 0) return;
        slot_[j] = static_cast<index_type>(cols_.size());
        cols_.push_back(j);
        w_.push_back(0.0);
    }
    /// C-hat: the strong C neighbours of i and those of its strong F neighbours.
    void gather_coarse(index_type i)
    {
        for (index_type k = a_.ptr[i]; k < a_.ptr[i + 1]; ++k) {
            if (!strong_[k]) continue;
            const index_type m = a_.col[k];
            if (s_.coarse_of[m] >= 0) {
                add_column(s_.coarse_of[m]);
                continue;
            }
            for (index_type q = c_.ptr[m]; q < c_.ptr[m + 1]; ++q)
                if (c_.strong[q]) add_column(c_.coarse[q]);
        }
    }
    /// a_mi if of the opposite sign to a_mm, else 0 (0 too where m's row has no column i).
    double opposite_to(index_type m, index_type i) const
    {
        const index_type* begin = a_.col + a_.ptr[m];
        const index_type* end = a_.col + a_.ptr[m + 1];
        const index_type* at = std::lower_bound(begin, end, i);
        if (at == end || *at != i) return 0.0;
        const double v = static_cast<double>(a_.val[a_.ptr[m] + (at - begin)]);
        return c_.sign[m] * v < 0 ? v : 0.0;
    }
    /// Spreads a_im of the strong F neighbour m over C-hat and i itself in proportion to m's
    /// couplings to them of the opposite sign to m's diagonal; returns the part that falls on i
    /// (all of a_im when m has no such coupling).
    double distribute(index_type i, index_type m, double a_im)
    {
        const double to_i = opposite_to(m, i);
        double total = to_i;
        for (index_type q = c_.ptr[m]; q < c_.ptr[m + 1]; ++q)
            if (slot_[c_.coarse[q]] >= 0) total += c_.opposite[q];
        if (total == 0) return a_im;
        for (index_type q = c_.ptr[m]; q < c_.ptr[m + 1]; ++q)
            if (slot_[c_.coarse[q]] >= 0) w_[slot_[c_.coarse[q]]] += a_im * c_.opposite[q] / total;
        return a_im * to_i / total;
    }

    const HostRows<V>& a_;
    const std::vector<std::uint8_t>& strong_;
    const CoarseSplitting& s_;
    const CoarseCouplings& c_;
    std::vector<index_type> slot_;  ///< position of a coarse column in the current row, -1 if absent
    std::vector<index_type> cols_;
    std::vector<double> w_;
};

/// Keeps the max_entries largest weights (by magnitude) of a row; the kept positive weights are
/// scaled to the sum of all positive ones and the kept negative ones likewise (as hypre's
/// truncation does), so the row's sum stays and mixed signs are not blown up.
void truncate_row(std::vector<index_type>& cols, std::vector<double>& w, int max_entries)
{
    if (max_entries <= 0 || static_cast<int>(cols.size()) <= max_entries) return;
    std::vector<std::size_t> order(cols.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::partial_sort(order.begin(), order.begin() + max_entries, order.end(),
                      [&](std::size_t x, std::size_t y) { return std::abs(w[x]) > std::abs(w[y]); });
    double positive = 0, negative = 0, kept_positive = 0, kept_negative = 0;
    for (double v : w) (v > 0 ? positive : negative) += v;
    std::vector<index_type> kept_cols;
    std::vector<double> kept_w;
    for (int e = 0; e < max_entries; ++e) {
        kept_cols.push_back(cols[order[e]]);
        kept_w.push_back(w[order[e]]);
        (w[order[e]] > 0 ? kept_positive : kept_negative) += w[order[e]];
    }
    for (double& v : kept_w) {
        if (v > 0 && kept_positive != 0) v *= positive / kept_positive;
        if (v < 0 && kept_negative != 0) v *= negative / kept_negative;
    }
    cols = std::move(kept_cols);
    w = std::move(kept_w);
}

/// The interpolation rows [begin, end) in CSR pieces (their lengths, columns and weights).
template <typename V>
struct RowBlock {
    std::vector<index_type> lengths, cols;
    std::vector<V> vals;
};

/// Makes the interpolation rows [begin, end) with row's scratch, truncated, into out.
template <typename V>
void interpolation_rows(ExtendedRow<V>& row, const CoarseSplitting& s, int max_entries, index_type begin,
                        index_type end, RowBlock<V>& out)
{
    std::vector<index_type> rc;
    std::vector<double> rw;
    std::vector<std::size_t> order;
    for (index_type i = begin; i < end; ++i) {
        if (s.coarse_of[i] >= 0) {
            out.lengths.push_back(1);
            out.cols.push_back(s.coarse_of[i]);
            out.vals.push_back(V(1));
            continue;
        }
        row.make(i);
        rc = row.columns();
        rw = row.weights();
        truncate_row(rc, rw, max_entries);
        order.resize(rc.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return rc[x] < rc[y]; });
        out.lengths.push_back(static_cast<index_type>(rc.size()));
        for (std::size_t e : order) {
            out.cols.push_back(rc[e]);
            out.vals.push_back(static_cast<V>(rw[e]));
        }
    }
}

}  // namespace

template <typename V>
Csr<V> extended_interpolation(const Csr<V>& a_host, const std::vector<std::uint8_t>& strong,
                              const CoarseSplitting& splitting, int max_entries, const ExecPtr& exec)
{
    const HostRows<V> a(a_host);
    // Blocks of rows on the host's threads (each thread with its own scratch), joined in row order.
    const index_type block_rows = 8192;
    const index_type blocks = (a.n + block_rows - 1) / block_rows;
    std::vector<RowBlock<V>> parts(static_cast<std::size_t>(blocks));
    const CoarseCouplings couplings(a, strong, splitting);
#pragma omp parallel
    {
        ExtendedRow<V> row(a, strong, splitting, couplings);
#pragma omp for schedule(dynamic, 1)
        for (index_type b = 0; b < blocks; ++b)
            interpolation_rows(row, splitting, max_entries, b * block_rows, std::min(a.n, (b + 1) * block_rows),
                               parts[b]);
    }
    std::vector<index_type> ptr{0}, cols;
    std::vector<V> vals;
    std::int64_t entries = 0;
    for (const RowBlock<V>& part : parts) {
        for (index_type length : part.lengths) {
            entries += length;
            if (entries > std::numeric_limits<index_type>::max())
                throw std::invalid_argument("classical AMG: an interpolation of more than 2^31 - 1 entries (lower "
                                            "solver.amg.interpolation_entries)");
            ptr.push_back(static_cast<index_type>(entries));
        }
        cols.insert(cols.end(), part.cols.begin(), part.cols.end());
        vals.insert(vals.end(), part.vals.begin(), part.vals.end());
    }
    return Csr<V>{a.n, splitting.count, Array<index_type>::from_host(exec, ptr),
                  Array<index_type>::from_host(exec, cols), Array<V>::from_host(exec, vals)};
}

template std::vector<std::uint8_t> classical_strength(const Csr<float>&, double);
template std::vector<std::uint8_t> classical_strength(const Csr<double>&, double);
template CoarseSplitting pmis_splitting(const Csr<float>&, const std::vector<std::uint8_t>&);
template CoarseSplitting pmis_splitting(const Csr<double>&, const std::vector<std::uint8_t>&);
template Csr<float> extended_interpolation(const Csr<float>&, const std::vector<std::uint8_t>&,
                                           const CoarseSplitting&, int, const ExecPtr&);
template Csr<double> extended_interpolation(const Csr<double>&, const std::vector<std::uint8_t>&,
                                            const CoarseSplitting&, int, const ExecPtr&);

}  // namespace gpufem
