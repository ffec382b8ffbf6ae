#pragma once
// The split of a generated box grid among the ranks of a run into blocks of whole boxes: the
// ranks factored into blocks per axis so that the fewest box faces lie between blocks, each
// axis's boxes in near-equal ranges. Every rank computes the same split alone, and from it
// the owner of any node (the lowest rank among the blocks that touch it).
#include <array>
#include <vector>

#include "mesh/mesh_partition.hpp"
#include "mesh/shape_grid.hpp"
#include "mesh/structured_grid.hpp"

namespace gpufem {

/// Blocks of boxes, one per part: part p is block (q0, q1, q2) with p = q0 + count0 (q1 +
/// count1 q2), and block q along axis a holds the boxes cuts[a][q] .. cuts[a][q + 1] - 1.
struct GridBlocks {
    std::array<int, 3> count = {1, 1, 1};
    std::array<std::vector<long long>, 3> cuts;  ///< per axis: count + 1 box offsets, 0 .. boxes

    /// The number of parts.
    int parts() const { return count[0] * count[1] * count[2]; }
    /// The part of block q.
    int part_of(const std::array<int, 3>& q) const { return q[0] + count[0] * (q[1] + count[1] * q[2]); }
    /// The block of part p.
    std::array<int, 3> block_of(int p) const;
    /// The lowest block along axis a whose closed range of lattice points (order k) holds
    /// lattice coordinate i: a node's owner is the part of these per axis.
    int lowest_block(int a, long long i, int k) const;
    /// Box faces between blocks (facets between parts: times the facets of a box face).
    long long faces_between(const StructuredGrid& grid) const;
    /// Boxes of the largest block over the mean.
    double imbalance(const StructuredGrid& grid) const;
};

/// The split of grid's boxes into `parts` blocks (see GridBlocks); throws
/// std::invalid_argument when the grid has fewer boxes along its axes than the split needs.
GridBlocks grid_blocks(const StructuredGrid& grid, int parts);

/// The sizes of the partition blocks make: cells per part, facets between parts (no
/// per-cell parts).
CellPartition block_summary(const ShapeGrid& shape, const GridBlocks& blocks);

/// The partition of the whole mesh of shape that blocks make (each cell in its box's block),
/// for comparing with a part cut from the whole mesh.
CellPartition block_partition(const ShapeGrid& shape, const GridBlocks& blocks);

}  // namespace gpufem
