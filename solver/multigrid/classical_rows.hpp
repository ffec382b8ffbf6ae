#pragma once
// The per-row arithmetic of classical coarsening (classical_coarsening.hpp): the strength of
// one row, PMIS's ranking and the interpolation rows' bounds, called by both backends; and one
// F row of the extended+i interpolation with its truncation, the CPU's reference, which the
// CUDA kernel (a warp a row) follows step by step in the same order of operations, so the two
// backends build the same hierarchy.
#include <cmath>
#include <cstdint>

#include "linalg/csr.hpp"
#include "linalg/host_device.hpp"

namespace gpufem {

/// The arrays of a matrix and of its classical coarsening, read by the row functions.
template <typename V>
struct ClassicalLevel {
    const index_type* ptr;         ///< row offsets (rows sorted by column)
    const index_type* col;         ///< columns
    const V* val;                  ///< values
    const std::uint8_t* strong;    ///< per entry: row depends on column
    const index_type* coarse_of;   ///< per point: coarse number, -1 for F points (may be null
                                   ///< before the splitting exists)
};

/// The position of column j in row i of a matrix with sorted rows, -1 if absent.
GPUFEM_HOST_DEVICE inline index_type classical_find(const index_type* ptr, const index_type* col, index_type i,
                                                    index_type j)
{
    index_type lo = ptr[i], hi = ptr[i + 1];
    while (lo < hi) {
        const index_type mid = lo + (hi - lo) / 2;
        if (col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ptr[i + 1] && col[lo] == j ? lo : -1;
}

/// -1 when a_ii < 0, else 1: couplings of the other sign are the ones that attract.
template <typename V>
GPUFEM_HOST_DEVICE inline double classical_sign(const ClassicalLevel<V>& a, index_type i)
{
    const index_type k = classical_find(a.ptr, a.col, i, i);
    return k >= 0 && static_cast<double>(a.val[k]) < 0 ? -1.0 : 1.0;
}

/// Marks row i's strong entries: off-diagonal, of the opposite sign to a_ii, with |a_ij| >=
/// theta times the row's largest such. strong[k] is written for every entry of the row.
template <typename V>
GPUFEM_HOST_DEVICE inline void classical_strength_row(const index_type* ptr, const index_type* col, const V* val,
                                                      index_type i, double theta, std::uint8_t* strong)
{
    double sign = 1.0;
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
        if (col[k] == i) sign = static_cast<double>(val[k]) < 0 ? -1.0 : 1.0;
    double largest = 0;  // the largest coupling of the opposite sign, as a positive number
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
        if (col[k] != i && -sign * static_cast<double>(val[k]) > largest) largest = -sign * static_cast<double>(val[k]);
    for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
        strong[k] = largest > 0 && col[k] != i && -sign * static_cast<double>(val[k]) >= theta * largest;
}

/// A fixed pseudo-random number in [0, 1) for point i (splitmix64's finaliser): PMIS's tie
/// breaker, the same on both backends.
GPUFEM_HOST_DEVICE inline double pmis_fraction(index_type i)
{
    std::uint64_t z = static_cast<std::uint64_t>(i) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// PMIS's order: does point j (measure mj) outrank point i (measure mi)? Larger measure, ties
/// broken by the larger index, so every round has a best undecided point.
GPUFEM_HOST_DEVICE inline bool pmis_outranks(double mj, index_type j, double mi, index_type i)
{
    return mj > mi || (mj == mi && j > i);
}

/// States of a point during PMIS.
enum : std::int8_t { pmis_undecided = 0, pmis_fine = 1, pmis_coarse = 2 };

/// The strong C neighbours of point m.
template <typename V>
GPUFEM_HOST_DEVICE inline index_type classical_strong_coarse(const ClassicalLevel<V>& a, index_type m)
{
    index_type count = 0;
    for (index_type q = a.ptr[m]; q < a.ptr[m + 1]; ++q) count += a.strong[q] && a.coarse_of[a.col[q]] >= 0;
    return count;
}

/// An upper bound of the number of C points F row i interpolates from: its strong C neighbours
/// plus those of its strong F neighbours (strong_coarse[m]: the strong C neighbours of m).
template <typename V>
GPUFEM_HOST_DEVICE inline index_type extended_row_bound(const ClassicalLevel<V>& a, const index_type* strong_coarse,
                                                        index_type i)
{
    index_type bound = 0;
    for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
        if (!a.strong[k]) continue;
        bound += a.coarse_of[a.col[k]] >= 0 ? 1 : strong_coarse[a.col[k]];
    }
    return bound;
}

/// Spreads a_im of i's strong F neighbour m over C-hat and i itself in proportion to m's
/// couplings to them of the opposite sign to m's diagonal; returns the part that falls on i
/// (all of a_im when m has no such coupling).
template <typename V, typename Slots>
GPUFEM_HOST_DEVICE inline double extended_distribute(const ClassicalLevel<V>& a, index_type i, index_type m,
                                                     double a_im, const Slots& slots, double* w)
{
    const double sign = classical_sign(a, m);
    const auto opposite = [&](index_type q) {
        const double v = static_cast<double>(a.val[q]);
        return sign * v < 0 ? v : 0.0;
    };
    const index_type at_i = classical_find(a.ptr, a.col, m, i);
    const double to_i = at_i >= 0 ? opposite(at_i) : 0.0;
    double total = to_i;
    for (index_type q = a.ptr[m]; q < a.ptr[m + 1]; ++q)
        if (a.coarse_of[a.col[q]] >= 0 && slots.find(a.coarse_of[a.col[q]]) >= 0) total += opposite(q);
    if (total == 0) return a_im;
    for (index_type q = a.ptr[m]; q < a.ptr[m + 1]; ++q) {
        if (a.coarse_of[a.col[q]] < 0) continue;
        const index_type at = slots.find(a.coarse_of[a.col[q]]);
        if (at >= 0) w[at] += a_im * opposite(q) / total;
    }
    return a_im * to_i / total;
}

/// One F row of the extended+i interpolation (De Sterck, Falgout, Nolting and Yang 2008),
/// built in cols / w (room for extended_row_bound entries) in the order the C points are met.
/// Slots maps a coarse number to its position in the row: find(c) (-1 if absent) and
/// add(c, position); it starts empty. Returns the row's length; 0 when i reaches no C point or
/// its lumped diagonal vanishes against a_ii.
template <typename V, typename Slots>
GPUFEM_HOST_DEVICE inline index_type extended_row(const ClassicalLevel<V>& a, index_type i, Slots& slots,
                                                  index_type* cols, double* w)
{
    index_type length = 0;
    const auto add = [&](index_type c) {
        if (slots.find(c) >= 0) return;
        slots.add(c, length);
        cols[length] = c;
        w[length++] = 0.0;
    };
    // C-hat: the strong C neighbours of i and those of its strong F neighbours.
    for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
        if (!a.strong[k]) continue;
        const index_type m = a.col[k];
        if (a.coarse_of[m] >= 0) {
            add(a.coarse_of[m]);
            continue;
        }
        for (index_type q = a.ptr[m]; q < a.ptr[m + 1]; ++q)
            if (a.strong[q] && a.coarse_of[a.col[q]] >= 0) add(a.coarse_of[a.col[q]]);
    }
    if (length == 0) return 0;
    double diag = 0, a_ii = 0;
    for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
        const index_type m = a.col[k];
        const double a_im = static_cast<double>(a.val[k]);
        const index_type at = a.coarse_of[m] >= 0 ? slots.find(a.coarse_of[m]) : -1;
        if (m == i)
            a_ii += a_im;
        else if (at >= 0)
            w[at] += a_im;
        else if (a.strong[k] && a.coarse_of[m] < 0)
            diag += extended_distribute(a, i, m, a_im, slots, w);
        else
            diag += a_im;  // weak and not interpolated from: lumped onto the diagonal
    }
    diag += a_ii;
    if (!(fabs(diag) > 1e-12 * fabs(a_ii))) return 0;
    for (index_type e = 0; e < length; ++e) w[e] = -w[e] / diag;
    return length;
}

/// Truncates a row of length entries to its max_entries largest weights by magnitude (ties:
/// the smaller column; 0: all kept); the kept positive weights are scaled to the sum of all
/// positive ones and the kept negative ones likewise (hypre's rule), so the row's sum stays.
/// Then sorts the kept entries by column. Returns the kept length.
GPUFEM_HOST_DEVICE inline index_type truncate_extended_row(index_type* cols, double* w, index_type length,
                                                           int max_entries)
{
    const index_type kept = max_entries > 0 && length > max_entries ? max_entries : length;
    if (kept < length) {
        double positive = 0, negative = 0;
        for (index_type e = 0; e < length; ++e) (w[e] > 0 ? positive : negative) += w[e];
        for (index_type e = 0; e < kept; ++e) {  // selection of the kept ones to the front
            index_type best = e;
            for (index_type f = e + 1; f < length; ++f)
                if (fabs(w[f]) > fabs(w[best]) || (fabs(w[f]) == fabs(w[best]) && cols[f] < cols[best])) best = f;
            const index_type c = cols[e];
            const double v = w[e];
            cols[e] = cols[best], w[e] = w[best];
            cols[best] = c, w[best] = v;
        }
        double kept_positive = 0, kept_negative = 0;
        for (index_type e = 0; e < kept; ++e) (w[e] > 0 ? kept_positive : kept_negative) += w[e];
        for (index_type e = 0; e < kept; ++e) {
            if (w[e] > 0 && kept_positive != 0) w[e] *= positive / kept_positive;
            if (w[e] < 0 && kept_negative != 0) w[e] *= negative / kept_negative;
        }
    }
    for (index_type e = 1; e < kept; ++e)  // insertion sort by column: rows are short
        for (index_type f = e; f > 0 && cols[f - 1] > cols[f]; --f) {
            const index_type c = cols[f];
            const double v = w[f];
            cols[f] = cols[f - 1], w[f] = w[f - 1];
            cols[f - 1] = c, w[f - 1] = v;
        }
    return kept;
}

}  // namespace gpufem
