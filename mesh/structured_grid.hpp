#pragma once
// The grid of boxes of a generated shape and the lattice of its nodes, with the kernel that
// writes its coordinates and cells; the grid's index arithmetic is written once for the host
// and the device.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Boxes of n per unit length (a square, a cube, or the L of three squares) and the lattice
/// of their nodes: k steps per box edge for order k, numbered x fastest, then y, then z.
struct StructuredGrid {
    int dim = 2;
    long long n = 1;                        ///< boxes per unit length
    int k = 1;                              ///< element order
    long long boxes[3] = {1, 1, 1};         ///< boxes per axis of the bounding grid
    double origin[3] = {0.0, 0.0, 0.0};     ///< position of lattice point (0,0,0)
    bool notch = false;  ///< L-shape (2n x 2n boxes): the boxes with x >= n and y < n are out
    /// From degree 5 (GLL nodes): the k + 1 nodes' positions along a box's edge, in [0, 1].
    double gll_fractions[9] = {};

    /// Lattice steps per unit length.
    GPUFEM_HOST_DEVICE long long m() const { return k * n; }
    GPUFEM_HOST_DEVICE long long num_boxes() const
    {
        return notch ? 3 * n * n : boxes[0] * boxes[1] * boxes[2];
    }
    /// The lowest corner of box b (in box units).
    GPUFEM_HOST_DEVICE void box(long long b, long long corner[3]) const
    {
        if (notch) {
            const long long r = b - n * n;
            corner[0] = b < n * n ? b % n : r % (2 * n);
            corner[1] = b < n * n ? b / n : n + r / (2 * n);
            corner[2] = 0;
            return;
        }
        corner[0] = b % boxes[0];
        corner[1] = (b / boxes[0]) % boxes[1];
        corner[2] = b / (boxes[0] * boxes[1]);
    }
    /// The box whose lowest corner is `corner` (inverse of box).
    GPUFEM_HOST_DEVICE long long box_index(const long long corner[3]) const
    {
        if (notch)
            return corner[1] < n ? corner[1] * n + corner[0] : n * n + (corner[1] - n) * 2 * n + corner[0];
        return corner[0] + boxes[0] * (corner[1] + boxes[1] * corner[2]);
    }
    GPUFEM_HOST_DEVICE long long num_points() const
    {
        if (notch) return m() * (m() + 1) + (m() + 1) * (2 * m() + 1);
        return (boxes[0] * k + 1) * (boxes[1] * k + 1) * (dim == 3 ? boxes[2] * k + 1 : 1);
    }
    /// The node number of lattice point (i, j, l).
    GPUFEM_HOST_DEVICE long long point_index(long long i, long long j, long long l) const
    {
        if (notch)
            return j < m() ? j * (m() + 1) + i : m() * (m() + 1) + (j - m()) * (2 * m() + 1) + i;
        return i + (boxes[0] * k + 1) * (j + (boxes[1] * k + 1) * l);
    }
    /// The lattice point of a node number (inverse of point_index).
    GPUFEM_HOST_DEVICE void point(long long index, long long p[3]) const
    {
        if (notch) {
            const long long lower = m() * (m() + 1), r = index - lower;
            p[0] = index < lower ? index % (m() + 1) : r % (2 * m() + 1);
            p[1] = index < lower ? index / (m() + 1) : m() + r / (2 * m() + 1);
            p[2] = 0;
            return;
        }
        const long long nx = boxes[0] * k + 1, ny = boxes[1] * k + 1;
        p[0] = index % nx;
        p[1] = (index / nx) % ny;
        p[2] = index / (nx * ny);
    }
    /// Position of lattice point p along an axis: origin + p / m (exact at the box corners),
    /// from degree 5 the GLL node's within its box.
    GPUFEM_HOST_DEVICE double position(int axis, long long p) const
    {
        if (axis >= dim) return 0.0;
        if (k < 5) return origin[axis] + static_cast<double>(p) / static_cast<double>(m());
        const long long box = p / k;
        return origin[axis] + (static_cast<double>(box) + gll_fractions[p % k]) / static_cast<double>(n);
    }
};

/// The parent cell and child index of cell c of `fine` in `coarse` (see nested_box_parents).
GPUFEM_HOST_DEVICE inline void nested_box_parent(const StructuredGrid& fine, const StructuredGrid& coarse,
                                                 int cells_per_box, const int* coarse_cell_of_child, long long c,
                                                 index_type& parent, std::uint8_t& child)
{
    long long corner[3];
    fine.box(c / cells_per_box, corner);
    int bits = 0;
    for (int axis = 0; axis < fine.dim; ++axis) {
        bits |= static_cast<int>(corner[axis] & 1) << axis;
        corner[axis] /= 2;
    }
    const int type = static_cast<int>(c % cells_per_box) << fine.dim | bits;
    parent = static_cast<index_type>(coarse.box_index(corner) * cells_per_box + coarse_cell_of_child[type]);
    child = static_cast<std::uint8_t>(type);
}

#define GPUFEM_KERNEL_LIST "mesh/structured_grid_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
