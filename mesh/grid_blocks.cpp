#include "mesh/grid_blocks.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "mesh/shape_grid.hpp"

namespace gpufem {

std::array<int, 3> GridBlocks::block_of(int p) const
{
    return {p % count[0], (p / count[0]) % count[1], p / (count[0] * count[1])};
}

int GridBlocks::lowest_block(int a, long long i, int k) const
{
    const std::vector<long long>& c = cuts[static_cast<std::size_t>(a)];
    // The first block whose upper end k * cuts[q + 1] is at or past i.
    const auto above = std::lower_bound(c.begin() + 1, c.end(), i, [k](long long cut, long long x) { return cut * k < x; });
    return std::min(static_cast<int>(above - c.begin()) - 1, count[static_cast<std::size_t>(a)] - 1);
}

long long GridBlocks::faces_between(const StructuredGrid& grid) const
{
    long long faces = 0;
    for (int a = 0; a < grid.dim; ++a) {
        long long area = 1;
        for (int b = 0; b < grid.dim; ++b)
            if (b != a) area *= grid.boxes[b];
        faces += (count[static_cast<std::size_t>(a)] - 1) * area;
    }
    return faces;
}

double GridBlocks::imbalance(const StructuredGrid& grid) const
{
    long long largest = 1;
    for (int a = 0; a < 3; ++a) {
        const std::vector<long long>& c = cuts[static_cast<std::size_t>(a)];
        long long widest = 0;
        for (std::size_t q = 0; q + 1 < c.size(); ++q) widest = std::max(widest, c[q + 1] - c[q]);
        largest *= widest;
    }
    return static_cast<double>(largest) * parts() / static_cast<double>(grid.num_boxes());
}

namespace {

/// Box faces between the blocks of a split into count[a] blocks per axis.
long long faces_of_split(const StructuredGrid& grid, const std::array<int, 3>& count)
{
    GridBlocks blocks;
    blocks.count = count;
    return blocks.faces_between(grid);
}

/// n boxes in q near-equal ranges (the first n % q one box longer).
std::vector<long long> even_cuts(long long n, int q)
{
    std::vector<long long> cuts(static_cast<std::size_t>(q) + 1, 0);
    for (int i = 0; i < q; ++i) cuts[static_cast<std::size_t>(i) + 1] = cuts[static_cast<std::size_t>(i)] + n / q + (i < n % q ? 1 : 0);
    return cuts;
}

}  // namespace

GridBlocks grid_blocks(const StructuredGrid& grid, int parts)
{
    if (parts < 1) throw std::invalid_argument("grid_blocks: fewer than one part");
    // Every factoring of parts into blocks per axis that the grid's boxes allow; the fewest
    // faces between blocks wins, and among equals the most blocks along the slowest axis
    // (whole planes of the node numbering per part).
    std::array<int, 3> best = {0, 0, 0};
    long long best_faces = std::numeric_limits<long long>::max();
    for (int c2 = 1; c2 <= (grid.dim == 3 ? parts : 1); ++c2)
        for (int c1 = 1; c1 <= parts / c2; ++c1) {
            if (parts % (c1 * c2) != 0) continue;
            const std::array<int, 3> count = {parts / (c1 * c2), c1, c2};
            if (count[0] > grid.boxes[0] || count[1] > grid.boxes[1] || count[2] > grid.boxes[2]) continue;
            const long long faces = faces_of_split(grid, count);
            if (faces < best_faces || (faces == best_faces && (count[2] > best[2] || (count[2] == best[2] && count[1] > best[1])))) {
                best = count;
                best_faces = faces;
            }
        }
    if (best[0] == 0)
        throw std::invalid_argument("grid_blocks: " + std::to_string(parts) + " parts need more boxes than the grid's " +
                                    std::to_string(grid.num_boxes()));
    GridBlocks blocks;
    blocks.count = best;
    for (int a = 0; a < 3; ++a) blocks.cuts[static_cast<std::size_t>(a)] = even_cuts(grid.boxes[a], best[static_cast<std::size_t>(a)]);
    return blocks;
}

CellPartition block_summary(const ShapeGrid& shape, const GridBlocks& blocks)
{
    CellPartition out;
    out.parts = blocks.parts();
    out.method = "blocks of the generated grid";
    for (int p = 0; p < out.parts; ++p) {
        const std::array<int, 3> q = blocks.block_of(p);
        long long boxes = 1;
        for (int a = 0; a < 3; ++a) {
            const std::vector<long long>& cuts = blocks.cuts[static_cast<std::size_t>(a)];
            boxes *= cuts[static_cast<std::size_t>(q[static_cast<std::size_t>(a)]) + 1] -
                     cuts[static_cast<std::size_t>(q[static_cast<std::size_t>(a)])];
        }
        out.cells_per_part.push_back(static_cast<index_type>(boxes * shape.cells_per_box));
    }
    // Kuhn's split leaves 2 triangles on every box face; the other cells one facet.
    out.edge_cut = blocks.faces_between(shape.grid) * (shape.type == ElementType::tetrahedron ? 2 : 1);
    return out;
}

CellPartition block_partition(const ShapeGrid& shape, const GridBlocks& blocks)
{
    CellPartition out = block_summary(shape, blocks);
    out.part.resize(static_cast<std::size_t>(shape.num_cells()));
    for (long long c = 0; c < shape.num_cells(); ++c) {
        long long corner[3];
        shape.grid.box(c / shape.cells_per_box, corner);
        std::array<int, 3> q{0, 0, 0};
        for (int a = 0; a < 3; ++a) {
            const std::vector<long long>& cuts = blocks.cuts[static_cast<std::size_t>(a)];
            q[static_cast<std::size_t>(a)] =
                static_cast<int>(std::upper_bound(cuts.begin(), cuts.end(), corner[a]) - cuts.begin()) - 1;
        }
        out.part[static_cast<std::size_t>(c)] = blocks.part_of(q);
    }
    return out;
}

}  // namespace gpufem
