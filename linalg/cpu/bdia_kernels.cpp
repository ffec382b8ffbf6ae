// CPU reference for the bDIA layout (linalg/bdia.hpp): the slabs' bands, fill, SpMV.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include <unistd.h>

#include "linalg/bdia.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// A band: its first diagonal and its number of diagonals.
using Band = std::pair<index_type, index_type>;

/// The bands of slab s: its rows' distinct diagonals in increasing order, neighbours at most
/// gap empty diagonals apart in one band; more than bdia_listed_diagonals distinct ones: one
/// band from the lowest to the highest.
template <typename V>
std::vector<Band> slab_bands(const Csr<V>& a, index_type s, index_type gap)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    std::vector<index_type> diagonals;
    const index_type end = std::min<index_type>(a.rows, (s + 1) * bdia_slab);
    for (index_type i = s * bdia_slab; i < end; ++i)
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) diagonals.push_back(col[k] - i);
    std::sort(diagonals.begin(), diagonals.end());
    diagonals.erase(std::unique(diagonals.begin(), diagonals.end()), diagonals.end());
    std::vector<Band> bands;
    if (diagonals.empty()) return bands;
    if (static_cast<index_type>(diagonals.size()) > bdia_listed_diagonals)
        return {{diagonals.front(), diagonals.back() - diagonals.front() + 1}};
    for (const index_type d : diagonals) {
        if (!bands.empty() && d - (bands.back().first + bands.back().second) <= gap)
            bands.back().second = d - bands.back().first + 1;
        else
            bands.push_back({d, 1});
    }
    return bands;
}

}  // namespace

template <typename V>
void bdia_slab_bands(const Executor&, const Csr<V>& a, index_type gap, index_type* band_ptr,
                     std::int64_t* slab_ptr, index_type* stats)
{
    const index_type slabs = (a.rows + bdia_slab - 1) / bdia_slab;
    std::vector<std::vector<Band>> bands(static_cast<std::size_t>(slabs));
#pragma omp parallel for schedule(dynamic, 16)
    for (index_type s = 0; s < slabs; ++s) bands[s] = slab_bands(a, s, gap);
    stats[0] = stats[1] = stats[2] = stats[3] = stats[4] = 0;
    for (index_type i = 0; i < a.rows; ++i) stats[4] = std::max(stats[4], a.row_ptr.data()[i + 1] - a.row_ptr.data()[i]);
    band_ptr[0] = 0;
    slab_ptr[0] = 0;
    for (index_type s = 0; s < slabs; ++s) {
        index_type stored = 0;
        for (const auto& [offset, width] : bands[s]) {
            stored += width;
            stats[0] = std::max({stats[0], std::abs(offset), std::abs(offset + width - 1)});
        }
        stats[1] = std::max(stats[1], stored);
        const auto count = static_cast<index_type>(bands[s].size());
        stats[2] = std::max(stats[2], count);
        stats[3] = std::max(stats[3], count * (bdia_slab - 1) + stored);
        band_ptr[s + 1] = band_ptr[s] + count;
        slab_ptr[s + 1] = slab_ptr[s] + std::int64_t{stored} * bdia_slab;
    }
}

template <typename V>
void bdia_band_list(const Executor&, const Csr<V>& a, index_type gap, const index_type* band_ptr,
                    index_type* band_offset, index_type* band_width)
{
    const index_type slabs = (a.rows + bdia_slab - 1) / bdia_slab;
#pragma omp parallel for schedule(dynamic, 16)
    for (index_type s = 0; s < slabs; ++s) {
        index_type b = band_ptr[s];
        for (const auto& [offset, width] : slab_bands(a, s, gap)) {
            band_offset[b] = offset;
            band_width[b] = width;
            ++b;
        }
    }
}

template <typename V>
void bdia_fill(const Executor&, const Csr<V>& a, Bdia<V>& b)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    const index_type* offsets = b.band_offset.data();
    const index_type* widths = b.band_width.data();
    std::fill(b.values.data(), b.values.data() + b.values.size(), V(0));
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < a.rows; ++i) {
        const index_type s = i / bdia_slab;
        V* slab_values = b.values.data() + b.slab_ptr.data()[s] + i % bdia_slab;
        const index_type first = b.band_ptr.data()[s], last = b.band_ptr.data()[s + 1];
        // Columns are sorted, so the row's diagonals come in increasing order: walk the bands
        // alongside, k_band the stored diagonals of the bands before.
        index_type band = first;
        std::int64_t k_band = 0;
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            const index_type d = col[k] - i;
            while (band + 1 < last && d >= offsets[band + 1]) k_band += widths[band++];
            slab_values[(k_band + d - offsets[band]) * bdia_slab] = val[k];
        }
    }
}

namespace {

/// Row i of A x: its slab s's bands times x, columns clipped to 0 .. rows-1.
template <typename V>
V bdia_row(const Bdia<V>& a, index_type s, index_type i, const V* x)
{
    const V* stored = a.values.data() + a.slab_ptr.data()[s] + i % bdia_slab;
    V sum = 0;
    for (index_type band = a.band_ptr.data()[s]; band < a.band_ptr.data()[s + 1]; ++band) {
        const index_type width = a.band_width.data()[band];
        for (index_type k = 0; k < width; ++k) {
            const std::int64_t j = std::int64_t{i} + a.band_offset.data()[band] + k;
            if (j >= 0 && j < a.rows) sum += stored[std::int64_t{k} * bdia_slab] * x[j];
        }
        stored += std::int64_t{width} * bdia_slab;
    }
    return sum;
}

}  // namespace

template <typename V>
void bdia_spmv(const Executor&, const Bdia<V>& a, V alpha, const V* x, V beta, V* y, std::size_t)
{
    const index_type slabs = a.slabs();
#pragma omp parallel for schedule(static)
    for (index_type s = 0; s < slabs; ++s) {
        const index_type end = std::min<index_type>(a.rows, (s + 1) * bdia_slab);
        for (index_type i = s * bdia_slab; i < end; ++i) {
            const V sum = bdia_row(a, s, i, x);
            y[i] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[i];
        }
    }
}

template <typename V>
void bdia_spmv_dot(const Executor&, const Bdia<V>& a, const V* x, V* y, double* partials, std::size_t)
{
    const index_type slabs = a.slabs();
#pragma omp parallel for schedule(static)
    for (index_type s = 0; s < slabs; ++s) {
        const index_type end = std::min<index_type>(a.rows, (s + 1) * bdia_slab);
        double partial = 0;
        for (index_type i = s * bdia_slab; i < end; ++i) {
            y[i] = bdia_row(a, s, i, x);
            partial += double(x[i]) * double(y[i]);
        }
        partials[s] = partial;
    }
}

template <typename V>
void bdia_spmv_direction(const Executor&, const Bdia<V>& a, const V* z, const double* beta, V* p, V* q,
                         double* partials, std::size_t)
{
    const index_type slabs = a.slabs();
    const V b = static_cast<V>(*beta);
#pragma omp parallel for schedule(static)
    for (index_type s = 0; s < slabs; ++s) {
        const index_type end = std::min<index_type>(a.rows, (s + 1) * bdia_slab);
        double partial = 0;
        for (index_type i = s * bdia_slab; i < end; ++i) {
            const V product = bdia_row(a, s, i, z);
            q[i] = b == V(0) ? product : product + b * q[i];
            p[i] = b == V(0) ? z[i] : z[i] + b * p[i];
            partial += double(p[i]) * double(q[i]);
        }
        partials[s] = partial;
    }
}

std::size_t bdia_available_bytes(const Executor&)
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return SIZE_MAX;  // unknown: do not refuse
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size) / 2;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(bdia_slab_bands, bdia_band_list, bdia_fill, bdia_spmv, bdia_spmv_dot,
                                  bdia_spmv_direction)

}  // namespace gpufem::kernels::cpu
