// CPU reference of the lattice product (solver/multigrid/lattice_product_kernels.hpp): each
// row's window counted, the offsets scanned, each row's window filled and written in column
// order.
#include <numeric>
#include <stdexcept>

#include "linalg/cpu/chunked_loops.hpp"
#include "solver/multigrid/lattice_product_kernels.hpp"

namespace gpufem::kernels::cpu {

void amg_lattice_points(const Executor&, LatticeNumbering numbering, index_type count, std::uint64_t* points)
{
    chunked_for(count, [&](long long g) {
        long long p[3];
        numbering.point(static_cast<index_type>(g), p);
        points[g] = packed_point(p);
    });
}

void amg_narrow_lattice_points(const Executor&, const std::uint64_t* points, index_type count, std::uint32_t* narrow)
{
    chunked_for(count, [&](long long g) { narrow[g] = narrow_point(points[g]); });
}

namespace {

/// The product with the points packed in P.
template <typename VA, typename V, typename O, typename P>
bool lattice_product_on(const Csr<VA, O>& a, const Csr<VA>* ghost, const Csr<V>& b, const P* points, int dim,
                        WindowCentre centre, index_type first, Csr<V>& c)
{
    const WindowRows<VA, O> rows = window_rows(a, ghost);
    const index_type *bp = b.row_ptr.data(), *bc = b.col_idx.data();
    const V* bv = b.values.data();
    index_type* cp = c.row_ptr.data();
    std::vector<unsigned char> fits(static_cast<std::size_t>(a.rows), 1);
    chunked_for(a.rows, [&](long long r) {
        P middle = 0;
        unsigned mask = 0;
        const auto row = static_cast<index_type>(r);
        const bool centred = window_centre(row, centre, first, bp, bc, points, middle);
        if (!centred && rows.row(row).count > 0) {
            fits[static_cast<std::size_t>(r)] = 0;
            return;
        }
        if (centred)
            fits[static_cast<std::size_t>(r)] =
                window_row<V, false>(row, rows, bp, bc, bv, points, dim, middle, mask, nullptr, nullptr);
        cp[r] = static_cast<index_type>(__builtin_popcount(mask));
    });
    for (const unsigned char f : fits)
        if (!f) return false;
    long long total = 0;
    for (index_type r = 0; r < a.rows; ++r) {
        const index_type count = cp[r];
        cp[r] = static_cast<index_type>(total);
        total += count;
    }
    if (total > 2147483647LL) throw std::length_error("AMG: a Galerkin product has more than 2^31 - 1 non-zeros");
    cp[a.rows] = static_cast<index_type>(total);
    c.col_idx = Array<index_type>(a.executor(), static_cast<std::size_t>(total));
    c.values = Array<V>(a.executor(), static_cast<std::size_t>(total));
    index_type* cc = c.col_idx.data();
    V* cv = c.values.data();
    chunked_for(a.rows, [&](long long r) {
        P middle = 0;
        unsigned mask = 0;
        index_type keys[lattice_window_slots];
        V sums[lattice_window_slots];
        const auto row = static_cast<index_type>(r);
        if (!window_centre(row, centre, first, bp, bc, points, middle)) return;
        window_row<V, true>(row, rows, bp, bc, bv, points, dim, middle, mask, keys, sums);
        write_window_row(mask, keys, sums, cc + cp[r], cv + cp[r]);
    });
    return true;
}

}  // namespace

template <typename VA, typename V, typename O>
bool amg_lattice_product(const Executor&, const Csr<VA, O>& a, const Csr<VA>* ghost, const Csr<V>& b,
                         const std::uint64_t* points, const std::uint32_t* narrow, int dim, WindowCentre centre,
                         index_type first, Csr<V>& c)
{
    return narrow ? lattice_product_on(a, ghost, b, narrow, dim, centre, first, c)
                  : lattice_product_on(a, ghost, b, points, dim, centre, first, c);
}

GPUFEM_INSTANTIATE_LATTICE_PRODUCT()

}  // namespace gpufem::kernels::cpu
