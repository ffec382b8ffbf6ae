#include "assembly/grid_part.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <future>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

using kernels::cpu::chunked_for;

/// A box of lattice points numbered x fastest: a part's scratch numbering of the points it
/// may hold.
struct LatticeBox {
    std::array<long long, 3> lo{0, 0, 0};
    std::array<long long, 3> size{1, 1, 1};

    long long count() const { return size[0] * size[1] * size[2]; }
    long long index(const long long p[3]) const
    {
        return (p[0] - lo[0]) + size[0] * ((p[1] - lo[1]) + size[1] * (p[2] - lo[2]));
    }
    bool holds(const long long p[3]) const
    {
        for (int a = 0; a < 3; ++a)
            if (p[a] < lo[a] || p[a] >= lo[a] + size[a]) return false;
        return true;
    }
    /// The point of scratch number w.
    void point(long long w, long long p[3]) const
    {
        p[0] = lo[0] + w % size[0];
        p[1] = lo[1] + (w / size[0]) % size[1];
        p[2] = lo[2] + w / (size[0] * size[1]);
    }
};

/// Calls row(first, p) for each row of box (its points along x from lattice point p, numbered
/// from first in the box's x-fastest order), the rows handed out to the host's threads: along a
/// row every x-fastest numbering (the box's, the window's, the grid's) steps by one.
template <typename Row>
void for_rows(const LatticeBox& box, Row&& row)
{
    const long long rows = box.size[1] * box.size[2];
#pragma omp parallel for schedule(dynamic, 64)
    for (long long r = 0; r < rows; ++r) {
        const long long p[3] = {box.lo[0], box.lo[1] + r % box.size[1], box.lo[2] + r / box.size[1]};
        row(r * box.size[0], p);
    }
}

/// What a part works on: its block's boxes, the window of boxes it may hold cells of (its
/// block and the layer just above it along each axis: the nodes on its upper faces are its
/// own), the lattice points of the window and the lowest block of each of their coordinates.
struct PartFrame {
    const ShapeGrid* shape = nullptr;
    std::array<int, 3> block{0, 0, 0};
    long long own_lo[3], own_hi[3], window_lo[3], window_hi[3];
    LatticeBox lattice;
    LatticeBox owned;  ///< the lattice points the part owns
    std::array<std::vector<int>, 3> lowest;  ///< per axis, per window coordinate: the lowest block

    /// The boxes of the part's block.
    long long own_boxes() const { return (own_hi[0] - own_lo[0]) * (own_hi[1] - own_lo[1]) * (own_hi[2] - own_lo[2]); }
    /// The owner of lattice point p of the window.
    int owner(const GridBlocks& blocks, const long long p[3]) const
    {
        return blocks.part_of({lowest[0][static_cast<std::size_t>(p[0] - lattice.lo[0])],
                               lowest[1][static_cast<std::size_t>(p[1] - lattice.lo[1])],
                               lowest[2][static_cast<std::size_t>(p[2] - lattice.lo[2])]});
    }
    /// Lattice point of node j of cell s of the box with lowest corner `corner`.
    void node_point(const long long corner[3], int s, int j, long long p[3]) const
    {
        const int* offset = &shape->patterns[3 * (static_cast<std::size_t>(s) * shape->nodes_per_cell + j)];
        for (int a = 0; a < 3; ++a) p[a] = shape->grid.k * corner[a] + offset[a];
    }
};

PartFrame part_frame(const ShapeGrid& shape, const GridBlocks& blocks, int part)
{
    const StructuredGrid& g = shape.grid;
    PartFrame f;
    f.shape = &shape;
    f.block = blocks.block_of(part);
    for (int a = 0; a < 3; ++a) {
        const std::vector<long long>& cuts = blocks.cuts[static_cast<std::size_t>(a)];
        const auto q = static_cast<std::size_t>(f.block[static_cast<std::size_t>(a)]);
        f.own_lo[a] = cuts[q];
        f.own_hi[a] = cuts[q + 1];
        f.window_lo[a] = f.own_lo[a];
        f.window_hi[a] = std::min(g.boxes[a], f.own_hi[a] + 1);
        const bool flat = a >= g.dim;
        f.lattice.lo[a] = flat ? 0 : f.window_lo[a] * g.k;
        f.lattice.size[a] = flat ? 1 : (f.window_hi[a] - f.window_lo[a]) * g.k + 1;
        std::vector<int>& lowest = f.lowest[static_cast<std::size_t>(a)];
        for (long long i = 0; i < f.lattice.size[a]; ++i)
            lowest.push_back(flat ? 0 : blocks.lowest_block(a, f.lattice.lo[a] + i, g.k));
        // The coordinates whose lowest block is the part's: one run.
        const auto first = std::find(lowest.begin(), lowest.end(), f.block[static_cast<std::size_t>(a)]);
        const auto count = std::count(lowest.begin(), lowest.end(), f.block[static_cast<std::size_t>(a)]);
        f.owned.lo[a] = f.lattice.lo[a] + (first - lowest.begin());
        f.owned.size[a] = count;
    }
    return f;
}

/// The boxes of [lo, hi) in the grid's order (x fastest), as (corner, box number) calls.
template <typename Body>
void for_boxes(const StructuredGrid& g, const long long lo[3], const long long hi[3], Body&& body)
{
    for (long long z = lo[2]; z < hi[2]; ++z)
        for (long long y = lo[1]; y < hi[1]; ++y)
            for (long long x = lo[0]; x < hi[0]; ++x) {
                const long long corner[3] = {x, y, z};
                body(corner, g.box_index(corner));
            }
}

/// The cells of the window's boxes above the block that hold a node the part owns, in the
/// whole mesh's order: (box corner, cell in box) pairs. Only the layer of boxes past the
/// block's upper faces is visited (three slabs, one per axis), then sorted into the grid's order.
std::vector<std::pair<std::array<long long, 3>, int>> cells_above(const PartFrame& f)
{
    std::vector<std::pair<long long, std::pair<std::array<long long, 3>, int>>> found;
    const ShapeGrid& shape = *f.shape;
    const auto visit = [&](const long long corner[3], long long box) {
        for (int s = 0; s < shape.cells_per_box; ++s)
            for (int j = 0; j < shape.nodes_per_cell; ++j) {
                long long p[3];
                f.node_point(corner, s, j, p);
                if (f.owned.holds(p)) {
                    found.push_back({box * shape.cells_per_box + s, {{corner[0], corner[1], corner[2]}, s}});
                    break;
                }
            }
    };
    // Slab a: boxes at or past the block's upper face along a, inside the block along the axes
    // after a, anywhere in the window along the axes before it: disjoint, and together every
    // window box outside the block.
    for (int a = 0; a < 3; ++a) {
        long long lo[3], hi[3];
        for (int b = 0; b < 3; ++b) {
            lo[b] = b == a ? f.own_hi[b] : f.window_lo[b];
            hi[b] = b == a ? f.window_hi[b] : (b > a ? f.own_hi[b] : f.window_hi[b]);
        }
        if (lo[a] < hi[a]) for_boxes(shape.grid, lo, hi, visit);
    }
    std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::pair<std::array<long long, 3>, int>> cells;
    cells.reserve(found.size());
    for (const auto& entry : found) cells.push_back(entry.second);
    return cells;
}

/// The window points marked -2 in local (ghosts), per owner part, each list in window order:
/// the lattice's planes scanned by the host's threads.
std::vector<std::vector<long long>> ghosts_by_owner(const PartFrame& f, const GridBlocks& blocks,
                                                    const HostVector<index_type>& local)
{
    const auto parts = static_cast<std::size_t>(blocks.parts());
    const long long plane = f.lattice.size[0] * f.lattice.size[1], planes = f.lattice.size[2];
    std::vector<std::vector<std::vector<long long>>> found(static_cast<std::size_t>(planes),
                                                          std::vector<std::vector<long long>>(parts));
#pragma omp parallel for schedule(dynamic, 1)
    for (long long z = 0; z < planes; ++z)
        for (long long w = z * plane; w < (z + 1) * plane; ++w)
            if (local[static_cast<std::size_t>(w)] == -2) {
                long long p[3];
                f.lattice.point(w, p);
                found[static_cast<std::size_t>(z)][static_cast<std::size_t>(f.owner(blocks, p))].push_back(w);
            }
    std::vector<std::vector<long long>> by_owner(parts);
    for (const auto& in_plane : found)
        for (std::size_t o = 0; o < parts; ++o)
            by_owner[o].insert(by_owner[o].end(), in_plane[o].begin(), in_plane[o].end());
    return by_owner;
}

/// The part's arrays that are std::vectors (whose sizing fills them on one thread, page by
/// page: 0.2 s of a 32M-cell part), sized on threads of their own while the part's parallel
/// loops run: the owned nodes' global numbers (with room for every window point, so the ghosts
/// append without a reallocation), each cell's global number and its subdomain (1).
struct PartArrays {
    std::future<std::vector<index_type>> global;
    std::future<std::pair<std::vector<index_type>, HostVector<int>>> cells;
};

PartArrays part_arrays(const PartFrame& f, std::size_t cells)
{
    PartArrays out;
    const auto owned = static_cast<std::size_t>(f.owned.count()), window = static_cast<std::size_t>(f.lattice.count());
    out.global = std::async(std::launch::async, [owned, window] {
        std::vector<index_type> global;
        global.reserve(window);
        global.resize(owned);
        return global;
    });
    out.cells = std::async(std::launch::async, [cells] {
        return std::pair{std::vector<index_type>(cells), HostVector<int>(cells, 1)};
    });
    return out;
}

/// Numbers the part's nodes: local[w] for window point w (-1: not held); the owned points
/// first in global order, then the ghosts by owner part, each block in global order.
void number_nodes(const PartFrame& f, const GridBlocks& blocks,
                  const std::vector<std::pair<std::array<long long, 3>, int>>& above, HostVector<index_type>& local,
                  PartNumbering& numbering, std::future<std::vector<index_type>>& global, StageLaps& laps)
{
    const StructuredGrid& g = f.shape->grid;
    const long long owned = f.owned.count();
    numbering.layout.owned = static_cast<index_type>(owned);
    local.resize(static_cast<std::size_t>(f.lattice.count()));
    chunked_for(f.lattice.count(), [&](long long w) { local[static_cast<std::size_t>(w)] = -1; });
    numbering.global = global.get();
    for_rows(f.owned, [&](long long first, const long long p[3]) {
        const auto at = static_cast<std::size_t>(f.lattice.index(p));
        const long long node = g.point_index(p[0], p[1], p[2]);
        for (long long i = 0; i < f.owned.size[0]; ++i) {
            local[at + static_cast<std::size_t>(i)] = static_cast<index_type>(first + i);
            numbering.global[static_cast<std::size_t>(first + i)] = static_cast<index_type>(node + i);
        }
    });
    laps.lap("owned");
    // Ghosts: the points of the block's boxes the part does not own (its lower faces) and the
    // other nodes of the cells above it, marked -2.
    LatticeBox own_points;
    for (int a = 0; a < 3; ++a) {
        own_points.lo[a] = a < g.dim ? f.own_lo[a] * g.k : 0;
        own_points.size[a] = a < g.dim ? (f.own_hi[a] - f.own_lo[a]) * g.k + 1 : 1;
    }
    chunked_for(own_points.count(), [&](long long w) {
        long long p[3];
        own_points.point(w, p);
        index_type& l = local[static_cast<std::size_t>(f.lattice.index(p))];
        if (l == -1) l = -2;
    });
    for (const auto& [corner, s] : above)
        for (int j = 0; j < f.shape->nodes_per_cell; ++j) {
            long long p[3];
            f.node_point(corner.data(), s, j, p);
            index_type& l = local[static_cast<std::size_t>(f.lattice.index(p))];
            if (l == -1) l = -2;
        }
    laps.lap("marked");
    const std::vector<std::vector<long long>> by_owner = ghosts_by_owner(f, blocks, local);
    laps.lap("ghosts found");
    for (int owner = 0; owner < blocks.parts(); ++owner) {
        const std::vector<long long>& ghosts = by_owner[static_cast<std::size_t>(owner)];
        if (ghosts.empty()) continue;
        if (owner == numbering.part) throw std::logic_error("grid_part: a ghost the part owns");
        numbering.layout.ghost_blocks.push_back({owner, static_cast<index_type>(ghosts.size())});
        for (long long w : ghosts) {
            long long p[3];
            f.lattice.point(w, p);
            local[static_cast<std::size_t>(w)] = static_cast<index_type>(numbering.global.size());
            numbering.global.push_back(static_cast<index_type>(g.point_index(p[0], p[1], p[2])));
        }
    }
    laps.lap("ghosts numbered");
}

/// The part's cells: its block's (every box's cells) in the whole mesh's order, then `above`.
void fill_cells(const PartFrame& f, const std::vector<std::pair<std::array<long long, 3>, int>>& above,
                const HostVector<index_type>& local, std::vector<index_type> global_cells, PartMesh& part,
                StageLaps& laps)
{
    const ShapeGrid& shape = *f.shape;
    const int per_box = shape.cells_per_box, npc = shape.nodes_per_cell;
    const long long nx = f.own_hi[0] - f.own_lo[0], ny = f.own_hi[1] - f.own_lo[1];
    const long long own_boxes = f.own_boxes();
    const std::size_t own_cells = static_cast<std::size_t>(own_boxes) * per_box;
    const std::size_t cells = own_cells + above.size();
    part.own_cells = static_cast<index_type>(own_cells);
    part.global_cells = std::move(global_cells);  // sized cells by part_arrays
    part.mesh.cells.resize(cells * npc);
    laps.lap("cells sized");
    const auto write_cell = [&](std::size_t c, const long long corner[3], int s) {
        part.global_cells[c] = static_cast<index_type>(shape.grid.box_index(corner) * per_box + s);
        for (int j = 0; j < npc; ++j) {
            long long p[3];
            f.node_point(corner, s, j, p);
            part.mesh.cells[c * npc + j] = local[static_cast<std::size_t>(f.lattice.index(p))];
        }
    };
    // The block's boxes row by row: node j of cell s of a box is a fixed step in the window's
    // numbering from the box's lowest corner (delta), and the boxes of a row one box apart.
    std::vector<long long> delta(static_cast<std::size_t>(per_box * npc));
    for (int s = 0; s < per_box; ++s)
        for (int j = 0; j < npc; ++j) {
            const long long origin[3] = {0, 0, 0};
            long long p[3];
            f.node_point(origin, s, j, p);
            delta[static_cast<std::size_t>(s * npc + j)] = p[0] + f.lattice.size[0] * (p[1] + f.lattice.size[1] * p[2]);
        }
    const long long k = shape.grid.k;
#pragma omp parallel for schedule(dynamic, 64)
    for (long long r = 0; r < (nx > 0 ? own_boxes / nx : 0); ++r) {
        long long corner[3] = {f.own_lo[0], f.own_lo[1] + r % ny, f.own_lo[2] + r / ny};
        const long long lowest[3] = {k * corner[0], k * corner[1], k * corner[2]};
        long long base = f.lattice.index(lowest);
        const long long box = shape.grid.box_index(corner);
        for (long long x = 0; x < nx; ++x, base += k) {
            auto c = static_cast<std::size_t>((r * nx + x) * per_box);
            for (int s = 0; s < per_box; ++s, ++c) {
                part.global_cells[c] = static_cast<index_type>((box + x) * per_box + s);
                for (int j = 0; j < npc; ++j)
                    part.mesh.cells[c * npc + j] = local[static_cast<std::size_t>(base + delta[static_cast<std::size_t>(s * npc + j)])];
            }
        }
    }
    for (std::size_t c = 0; c < above.size(); ++c) write_cell(own_cells + c, above[c].first.data(), above[c].second);
}

/// The boundary groups' facets on the window whose nodes the part holds, renumbered.
std::vector<BoundaryFacets> part_boundaries(const PartFrame& f, const HostVector<index_type>& local)
{
    std::vector<BoundaryFacets> groups = shape_boundaries(*f.shape, f.window_lo, f.window_hi);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t g = 0; g < groups.size(); ++g) {
        BoundaryFacets& group = groups[g];
        std::vector<index_type> kept;
        const int npf = group.nodes_per_facet;
        std::vector<index_type> row(static_cast<std::size_t>(npf));
        for (std::size_t facet = 0; facet < group.size(); ++facet) {
            bool held = true;
            for (int j = 0; j < npf && held; ++j) {
                long long p[3];
                f.shape->grid.point(group.connectivity[facet * npf + j], p);
                const index_type l = f.lattice.holds(p) ? local[static_cast<std::size_t>(f.lattice.index(p))] : -1;
                row[static_cast<std::size_t>(j)] = l;
                held = l >= 0;
            }
            if (held) kept.insert(kept.end(), row.begin(), row.end());
        }
        group.connectivity.assign(kept.begin(), kept.end());
    }
    return groups;
}

}  // namespace

GridPart grid_part(const ShapeGrid& shape, const GridBlocks& blocks, int part)
{
    if (part < 0 || part >= blocks.parts()) throw std::logic_error("grid_part: no such part");
    using clock = std::chrono::steady_clock;
    auto start = clock::now();
    double step[5] = {};
    const auto lap = [&](int k) {
        step[k] = std::chrono::duration<double>(clock::now() - start).count();
        start = clock::now();
    };
    const PartFrame f = part_frame(shape, blocks, part);
    const auto above = cells_above(f);
    PartArrays arrays = part_arrays(f, static_cast<std::size_t>(f.own_boxes() * shape.cells_per_box) + above.size());
    lap(0);
    GridPart out;
    out.numbering.part = part;
    HostVector<index_type> local;
    StageLaps laps;
    number_nodes(f, blocks, above, local, out.numbering, arrays.global, laps);
    lap(1);
    Mesh& mesh = out.part.mesh;
    mesh.dim = shape.grid.dim;
    mesh.cell_type = shape.type;
    mesh.degree = shape.grid.k;
    mesh.nodes_per_cell = shape.nodes_per_cell;
    mesh.source = shape.source;
    mesh.subdomains = {PhysicalGroup{"domain", shape.grid.dim, 1}};
    auto [global_cells, cell_group] = arrays.cells.get();
    laps.lap("cell arrays");
    fill_cells(f, above, local, std::move(global_cells), out.part, laps);
    mesh.cell_group = std::move(cell_group);
    laps.lap("cells");
    lap(2);
    const std::vector<index_type>& global = out.numbering.global;
    mesh.coordinates.resize(3 * global.size());
    const auto place = [&](std::size_t l, const long long p[3]) {
        for (int a = 0; a < 3; ++a) mesh.coordinates[3 * l + static_cast<std::size_t>(a)] = shape.grid.position(a, p[a]);
    };
    for_rows(f.owned, [&](long long first, const long long p[3]) {
        for (long long i = 0; i < f.owned.size[0]; ++i) {
            const long long q[3] = {p[0] + i, p[1], p[2]};
            place(static_cast<std::size_t>(first + i), q);
        }
    });
    chunked_for(static_cast<long long>(global.size()) - f.owned.count(), [&](long long ghost) {
        const auto l = static_cast<std::size_t>(f.owned.count() + ghost);
        long long p[3];
        shape.grid.point(global[l], p);
        place(l, p);
    });
    lap(3);
    mesh.boundaries = part_boundaries(f, local);
    lap(4);
    spdlog::debug("grid part {}: cells above {:.3f} s, nodes numbered {:.3f} s, cells {:.3f} s, coordinates {:.3f} s, "
                  "boundary groups {:.3f} s ({})", part, step[0], step[1], step[2], step[3], step[4], laps.text);
    return out;
}

}  // namespace gpufem
