// CPU reference of the classical coarsening kernels (solver/multigrid/classical_kernels.hpp):
// the rows of classical_rows.hpp on the host's threads.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "solver/multigrid/classical_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void classical_strength(const Executor&, index_type n, const index_type* row_ptr, const index_type* col_idx,
                        const V* values, double theta, std::uint8_t* strong)
{
#pragma omp parallel for schedule(dynamic, 4096)
    for (index_type i = 0; i < n; ++i) classical_strength_row(row_ptr, col_idx, values, i, theta, strong);
}

namespace {

/// The transpose of the strong pattern: for each point, the points that depend on it.
struct Influences {
    std::vector<index_type> ptr, of;
};

Influences influences_of(index_type n, const index_type* row_ptr, const index_type* col_idx,
                         const std::uint8_t* strong)
{
    Influences t;
    t.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    for (index_type i = 0; i < n; ++i)
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (strong[k]) ++t.ptr[col_idx[k] + 1];
    std::partial_sum(t.ptr.begin(), t.ptr.end(), t.ptr.begin());
    t.of.resize(static_cast<std::size_t>(t.ptr.back()));
    std::vector<index_type> fill(t.ptr.begin(), t.ptr.end() - 1);
    for (index_type i = 0; i < n; ++i)
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (strong[k]) t.of[fill[col_idx[k]]++] = i;
    return t;
}

}  // namespace

PmisCount pmis_split(const Executor&, index_type n, const index_type* row_ptr, const index_type* col_idx,
                     const std::uint8_t* strong, index_type* coarse_of)
{
    const Influences t = influences_of(n, row_ptr, col_idx, strong);
    std::vector<double> measure(static_cast<std::size_t>(n));
    std::vector<std::int8_t> state(static_cast<std::size_t>(n), pmis_undecided);
    std::vector<index_type> open;  // the undecided points
    for (index_type i = 0; i < n; ++i) {
        const index_type influenced = t.ptr[i + 1] - t.ptr[i];
        measure[i] = influenced + pmis_fraction(i);
        if (influenced == 0)
            state[i] = pmis_fine;
        else
            open.push_back(i);
    }
    const auto outranks = [&](index_type j, index_type i) {
        return state[j] == pmis_undecided && pmis_outranks(measure[j], j, measure[i], i);
    };
    PmisCount out;
    std::vector<std::uint8_t> best(open.size());
    while (!open.empty()) {
        ++out.rounds;
        // Each undecided point that no undecided point it depends on, or that depends on it,
        // outranks becomes C; then the undecided points depending on a new C point become F.
        best.resize(open.size());
#pragma omp parallel for schedule(dynamic, 4096)
        for (std::size_t o = 0; o < open.size(); ++o) {
            const index_type i = open[o];
            bool b = true;
            for (index_type k = row_ptr[i]; k < row_ptr[i + 1] && b; ++k)
                if (strong[k] && col_idx[k] != i && outranks(col_idx[k], i)) b = false;
            for (index_type k = t.ptr[i]; k < t.ptr[i + 1] && b; ++k)
                if (t.of[k] != i && outranks(t.of[k], i)) b = false;
            best[o] = b;
        }
        for (std::size_t o = 0; o < open.size(); ++o)
            if (best[o]) state[open[o]] = pmis_coarse;
        for (std::size_t o = 0; o < open.size(); ++o)
            if (best[o])
                for (index_type k = t.ptr[open[o]]; k < t.ptr[open[o] + 1]; ++k)
                    if (state[t.of[k]] == pmis_undecided) state[t.of[k]] = pmis_fine;
        std::erase_if(open, [&](index_type i) { return state[i] != pmis_undecided; });
    }
    for (index_type i = 0; i < n; ++i) coarse_of[i] = state[i] == pmis_coarse ? out.count++ : -1;
    return out;
}

namespace {

/// A row's map from coarse numbers to positions: one slot per C point (the host has the
/// memory), the slots a row used cleared after it.
class DenseSlots {
public:
    explicit DenseSlots(index_type coarse_count) : slot_(static_cast<std::size_t>(coarse_count), -1) {}
    /// The position of coarse point c in the row, -1 if absent.
    index_type find(index_type c) const { return slot_[c]; }
    /// Records c at position.
    void add(index_type c, index_type position)
    {
        slot_[c] = position;
        used_.push_back(c);
    }
    /// Forgets the row's points (only the slots it used are touched).
    void clear()
    {
        for (index_type c : used_) slot_[c] = -1;
        used_.clear();
    }

private:
    std::vector<index_type> slot_;
    std::vector<index_type> used_;
};

/// The interpolation rows [begin, end) in CSR pieces: their lengths, columns and weights.
template <typename V>
struct RowBlock {
    std::vector<index_type> lengths, cols;
    std::vector<V> vals;
};

/// Makes the rows [begin, end) into out, with one thread's slots and scratch.
template <typename V>
void interpolation_rows(const ClassicalLevel<V>& a, const index_type* strong_coarse, int max_entries,
                        index_type begin, index_type end, DenseSlots& slots, RowBlock<V>& out)
{
    std::vector<index_type> cols;
    std::vector<double> w;
    for (index_type i = begin; i < end; ++i) {
        if (a.coarse_of[i] >= 0) {
            out.lengths.push_back(1);
            out.cols.push_back(a.coarse_of[i]);
            out.vals.push_back(V(1));
            continue;
        }
        const auto bound = static_cast<std::size_t>(extended_row_bound(a, strong_coarse, i));
        if (cols.size() < bound) cols.resize(bound), w.resize(bound);
        index_type length = extended_row(a, i, slots, cols.data(), w.data());
        slots.clear();
        length = truncate_extended_row(cols.data(), w.data(), length, max_entries);
        out.lengths.push_back(length);
        for (index_type e = 0; e < length; ++e) {
            out.cols.push_back(cols[e]);
            out.vals.push_back(static_cast<V>(w[e]));
        }
    }
}

/// Joins the blocks in row order into a CSR matrix on exec.
template <typename V>
Csr<V> join_blocks(const std::vector<RowBlock<V>>& parts, index_type rows, index_type cols, const ExecPtr& exec)
{
    std::vector<index_type> ptr{0}, col;
    std::vector<V> val;
    std::int64_t entries = 0;
    for (const RowBlock<V>& part : parts) {
        for (index_type length : part.lengths) {
            entries += length;
            if (entries > std::numeric_limits<index_type>::max())
                throw std::invalid_argument("classical AMG: an interpolation of more than 2^31 - 1 entries (lower "
                                            "solver.amg.interpolation_entries)");
            ptr.push_back(static_cast<index_type>(entries));
        }
        col.insert(col.end(), part.cols.begin(), part.cols.end());
        val.insert(val.end(), part.vals.begin(), part.vals.end());
    }
    return Csr<V>{rows, cols, Array<index_type>::from_host(exec, ptr), Array<index_type>::from_host(exec, col),
                  Array<V>::from_host(exec, val)};
}

}  // namespace

template <typename V>
Csr<V> classical_interpolation(const Executor&, const Csr<V>& matrix, const std::uint8_t* strong,
                               const index_type* coarse_of, index_type coarse_count, int max_entries)
{
    const ClassicalLevel<V> a{matrix.row_ptr.data(), matrix.col_idx.data(), matrix.values.data(), strong,
                              coarse_of};
    const index_type n = matrix.rows;
    std::vector<index_type> strong_coarse(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(dynamic, 4096)
    for (index_type m = 0; m < n; ++m) strong_coarse[m] = classical_strong_coarse(a, m);
    // Blocks of rows on the host's threads (each with its own slots), joined in row order.
    const index_type block_rows = 8192;
    const index_type blocks = (n + block_rows - 1) / block_rows;
    std::vector<RowBlock<V>> parts(static_cast<std::size_t>(blocks));
#pragma omp parallel
    {
        DenseSlots slots(coarse_count);
#pragma omp for schedule(dynamic, 1)
        for (index_type b = 0; b < blocks; ++b)
            interpolation_rows(a, strong_coarse.data(), max_entries, b * block_rows,
                               std::min(n, (b + 1) * block_rows), slots, parts[b]);
    }
    return join_blocks(parts, n, coarse_count, matrix.executor());
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(classical_strength, classical_interpolation)

}  // namespace gpufem::kernels::cpu
