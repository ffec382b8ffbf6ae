#pragma once
// Kernels of the lattice product: C = A B for the Galerkin products of a grid transfer (A P,
// then R (A P)), declared once, implemented in cpu/lattice_product_kernels.cpp (the readable
// reference) and cuda/lattice_product_kernels.cu. On a grid of boxes every column of row r of
// C is a coarse point within one step (per axis) of a point known from r alone: the lowest
// coarse point that P's row r interpolates from (A P: fine unknown r and its neighbours
// interpolate from the 3^d coarse points around it), or coarse point r itself (R A P: the
// 27-point coarse stencil). So each row of C gathers into the 3^d slots of that window in a
// fixed order (a thread per row on the CPU, a warp on CUDA), with no hash table and no search;
// a column outside its window (another mesh, another stencil) sends the product back to the
// general one.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/host_device.hpp"
#include "mesh/structured_grid.hpp"
#include "solver/multigrid/amg_kernels.hpp"

namespace gpufem {

/// Bits per axis of a packed lattice point (grids of up to 2^21 - 1 points a side).
inline constexpr int lattice_axis_bits = 21;
/// Bits per axis of a narrow (32-bit) packed lattice point (grids of up to 2^10 - 1 points a
/// side): the same arithmetic as the 64-bit points on half the integer operations.
inline constexpr int narrow_axis_bits = 10;
/// Slots of a window (3^3).
inline constexpr int lattice_window_slots = 27;

/// Bits per axis of a point packed in P (std::uint64_t or std::uint32_t).
template <typename P>
inline constexpr int axis_bits_of = sizeof(P) == 8 ? lattice_axis_bits : narrow_axis_bits;

/// Lattice point p packed into P, axis_bits_of<P> per axis, x lowest.
template <typename P>
GPUFEM_HOST_DEVICE inline P pack_point(const long long p[3])
{
    constexpr int bits = axis_bits_of<P>;
    return static_cast<P>(p[0]) | static_cast<P>(p[1]) << bits | static_cast<P>(p[2]) << (2 * bits);
}

/// Lattice point p packed into 64 bits, lattice_axis_bits per axis, x lowest.
GPUFEM_HOST_DEVICE inline std::uint64_t packed_point(const long long p[3]) { return pack_point<std::uint64_t>(p); }

/// Coordinate `axis` of a packed lattice point.
template <typename P>
GPUFEM_HOST_DEVICE inline long long point_axis(P packed, int axis)
{
    constexpr int bits = axis_bits_of<P>;
    return static_cast<long long>((packed >> (axis * bits)) & ((P(1) << bits) - 1));
}

/// A 64-bit packed point repacked in 32 bits (its coordinates below 2^narrow_axis_bits).
GPUFEM_HOST_DEVICE inline std::uint32_t narrow_point(std::uint64_t packed)
{
    const long long p[3] = {point_axis(packed, 0), point_axis(packed, 1), point_axis(packed, 2)};
    return pack_point<std::uint32_t>(p);
}

/// How a grid level numbers its points: one StructuredGrid's node numbers (parts == 0, one
/// process), or parts' boxes numbered part after part, each in x-fastest order (the grid
/// levels of p-multigrid across ranks). Pointers in the kernel backend's memory.
struct LatticeNumbering {
    StructuredGrid grid;                  ///< parts == 0: the grid's node numbering
    int parts = 0;                        ///< > 0: boxes numbered part after part
    const index_type* offsets = nullptr;  ///< part q's first number (parts + 1 values)
    const GridBox* boxes = nullptr;       ///< part q's points

    /// The lattice point of number g.
    GPUFEM_HOST_DEVICE void point(index_type g, long long p[3]) const
    {
        if (parts == 0) {
            grid.point(g, p);
            return;
        }
        int lo = 0, hi = parts;  // offsets[lo] <= g < offsets[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (offsets[mid] <= g) lo = mid;
            else hi = mid;
        }
        boxes[lo].point(g - offsets[lo], p);
    }
};

/// Where the window of row r of C = A B lies.
enum class WindowCentre : int {
    lowest_of_b_row,  ///< the lowest point among the columns of B's row r (A P: P's row of fine unknown r)
    row_point,        ///< the point of number first + r (R (A P): row r is coarse unknown first + r)
};

/// The centre of row r's window, packed as the points are; false when it has none (B's row r
/// empty).
template <typename P>
GPUFEM_HOST_DEVICE inline bool window_centre(index_type r, WindowCentre centre, index_type first,
                                             const index_type* b_ptr, const index_type* b_col, const P* points,
                                             P& out)
{
    if (centre == WindowCentre::row_point) {
        out = points[first + r];
        return true;
    }
    if (b_ptr[r] == b_ptr[r + 1]) return false;
    long long low[3] = {-1, -1, -1};
    for (index_type q = b_ptr[r]; q < b_ptr[r + 1]; ++q)
        for (int a = 0; a < 3; ++a) {
            const long long x = point_axis(points[b_col[q]], a);
            if (low[a] < 0 || x < low[a]) low[a] = x;
        }
    out = pack_point<P>(low);
    return true;
}

/// The slot of lattice point `at` in the 3^dim window around centre (x fastest), or -1 when it
/// lies outside. On the packed points at once (the kernels' inner loop: few instructions):
/// at - centre plus one in every axis leaves each axis's step + 1 in its field, which must be
/// 0, 1 or 2; a step below -1 borrows from the next field and leaves high bits in its own (so
/// does the top field, into the bits above the fields), one above 1 sets bit 2 or both low
/// bits. Exact for coordinates below 2^axis_bits_of<P> - 1 (the lattices' limit).
template <typename P>
GPUFEM_HOST_DEVICE inline int window_slot(P at, P centre, int dim)
{
    constexpr int bits = axis_bits_of<P>;
    constexpr P ones = P(1) | P(1) << bits | P(1) << (2 * bits);
    const P used = dim >= 3 ? ~P(0) : (P(1) << (bits * dim)) - 1;
    const P d = ((at - centre + ones) & used) | (ones & ~used);  // unused axes: step 0
    if ((d & ~(3 * ones)) != 0 || (d & (d >> 1) & ones) != 0) return -1;
    return static_cast<int>((d & 3) + 3 * ((d >> bits) & 3) + 9 * ((d >> (2 * bits)) & 3)) -
           (dim == 1 ? 12 : dim == 2 ? 9 : 0);
}

/// The rows of A as the window products read them: one block (ghost_ptr null), or a rank's
/// owned columns with, after them (their columns shifted by shift), its ghost columns, side
/// by side without a joined copy of the rank's matrix. A row's entries come in the joined
/// row's order: the block's, then the ghosts'. O: the block's row offsets (64 bits past 2^31
/// - 1 entries); the ghost block's are 32-bit.
template <typename V, typename O>
struct WindowRows {
    const O* ptr = nullptr;
    const index_type* col = nullptr;
    const V* val = nullptr;
    const index_type* ghost_ptr = nullptr;
    const index_type* ghost_col = nullptr;
    const V* ghost_val = nullptr;
    index_type shift = 0;

    /// Where row r's entries lie: the block's first, how many are the block's, all of them.
    struct Row {
        O begin;
        long long own;
        index_type ghost_begin;
        long long count;
    };
    GPUFEM_HOST_DEVICE Row row(index_type r) const
    {
        const O begin = ptr[r];
        const long long own = static_cast<long long>(ptr[r + 1] - begin);
        const index_type ghost_begin = ghost_ptr ? ghost_ptr[r] : 0;
        return Row{begin, own, ghost_begin, own + (ghost_ptr ? ghost_ptr[r + 1] - ghost_begin : 0)};
    }
    /// The column of the row's entry e (e < count).
    GPUFEM_HOST_DEVICE index_type column(const Row& w, long long e) const
    {
        return e < w.own ? col[w.begin + e] : ghost_col[w.ghost_begin + (e - w.own)] + shift;
    }
    /// Its value.
    GPUFEM_HOST_DEVICE V value(const Row& w, long long e) const
    {
        return e < w.own ? val[w.begin + e] : ghost_val[w.ghost_begin + (e - w.own)];
    }
};

/// Row r of C = A B gathered into the 3^dim slots around centre: slot s holds column keys[s]
/// (bit s of mask set) and, when Values, the sum sums[s] of a_ik b_kj in A's, then B's order.
/// A's values (type VA) are rounded to B's type V as they are read. Returns false when a
/// column lies outside the window.
template <typename V, bool Values, typename VA, typename O, typename P>
GPUFEM_HOST_DEVICE inline bool window_row(index_type r, const WindowRows<VA, O>& a, const index_type* b_ptr,
                                          const index_type* b_col, const V* b_val, const P* points, int dim,
                                          P centre, unsigned& mask, index_type* keys, V* sums)
{
    mask = 0;
    const typename WindowRows<VA, O>::Row w = a.row(r);
    for (long long e = 0; e < w.count; ++e) {
        const index_type k = a.column(w, e);
        V a_ke = V(0);
        if constexpr (Values) a_ke = static_cast<V>(a.value(w, e));
        for (index_type q = b_ptr[k]; q < b_ptr[k + 1]; ++q) {
            const index_type j = b_col[q];
            const int slot = window_slot(points[j], centre, dim);
            if (slot < 0) return false;
            if constexpr (Values) {
                if (!(mask >> slot & 1u)) {
                    keys[slot] = j;
                    sums[slot] = V(0);
                }
                sums[slot] += a_ke * b_val[q];
            }
            mask |= 1u << slot;
        }
    }
    return true;
}

/// The window rows of [a | ghost] (ghost null: a alone), on their executor.
template <typename V, typename O>
WindowRows<V, O> window_rows(const Csr<V, O>& a, const Csr<V>* ghost)
{
    WindowRows<V, O> out{a.row_ptr.data(), a.col_idx.data(), a.values.data()};
    if (ghost) {
        out.ghost_ptr = ghost->row_ptr.data();
        out.ghost_col = ghost->col_idx.data();
        out.ghost_val = ghost->values.data();
        out.shift = a.cols;
    }
    return out;
}

/// The entries of mask's slots written in column order to columns / values (keys and sums
/// are reordered in place).
template <typename V>
GPUFEM_HOST_DEVICE inline void write_window_row(unsigned mask, index_type* keys, V* sums, index_type* columns,
                                                V* values)
{
    int count = 0;
    for (int s = 0; s < lattice_window_slots; ++s)
        if (mask >> s & 1u) {  // compacted to the front (count <= s)
            keys[count] = keys[s];
            sums[count] = sums[s];
            ++count;
        }
    for (int i = 1; i < count; ++i) {  // insertion sort: a lexicographic numbering is sorted already
        const index_type key = keys[i];
        const V sum = sums[i];
        int j = i - 1;
        for (; j >= 0 && keys[j] > key; --j) {
            keys[j + 1] = keys[j];
            sums[j + 1] = sums[j];
        }
        keys[j + 1] = key;
        sums[j + 1] = sum;
    }
    for (int i = 0; i < count; ++i) {
        columns[i] = keys[i];
        values[i] = sums[i];
    }
}

#define GPUFEM_KERNEL_LIST "solver/multigrid/lattice_product_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// The lattice product's instances in each backend: A, B and C of one value type (either row
/// offset type for A), and A in double with B and C in float (one process's rows).
#define GPUFEM_INSTANTIATE_LATTICE_PRODUCT()                                                       \
    GPUFEM_DETAIL_INSTANTIATE(amg_lattice_product, float, float, ::gpufem::index_type)             \
    GPUFEM_DETAIL_INSTANTIATE(amg_lattice_product, double, double, ::gpufem::index_type)           \
    GPUFEM_DETAIL_INSTANTIATE(amg_lattice_product, float, float, ::gpufem::wide_offset_type)       \
    GPUFEM_DETAIL_INSTANTIATE(amg_lattice_product, double, double, ::gpufem::wide_offset_type)     \
    GPUFEM_DETAIL_INSTANTIATE(amg_lattice_product, double, float, ::gpufem::index_type)

}  // namespace gpufem
