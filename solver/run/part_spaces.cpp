#include "solver/run/part_spaces.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <spdlog/spdlog.h>

#include "assembly/lagrange_interpolation.hpp"
#include "linalg/halo_plan_keys.hpp"
#include "mesh/grid_blocks.hpp"
#include "mesh/stage_laps.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/distributed_levels.hpp"

namespace gpufem {
namespace {

using Point = std::array<long long, 3>;

/// The global number, in the numbering that starts at first, of each ghost node's unknown
/// (-1 where the ghost carries none): every rank names the unknowns on its owned nodes and
/// the part's halo brings the names to the nodes' other holders.
std::vector<double> ghost_names(const PartPayload& part, const std::vector<index_type>& owned_nodes,
                                index_type first, const Communicator& host)
{
    const ExecPtr cpu = Executor::create_cpu();
    std::vector<double> named(static_cast<std::size_t>(part.numbering.layout.owned), -1.0);
    for (std::size_t k = 0; k < owned_nodes.size(); ++k)
        named[static_cast<std::size_t>(owned_nodes[k])] = static_cast<double>(first) + static_cast<double>(k);
    const HaloExchange<double> halo(part.halo, cpu, host);
    Array<double> ghosts(cpu, static_cast<std::size_t>(part.halo.ghosts()));
    halo.update(Array<double>::from_host(cpu, named), ghosts);
    return ghosts.to_host();
}

/// The halo of a space whose ghosts (global numbers, increasing) follow its owned unknowns.
template <typename V>
void ghost_halo(PartSpace<V>& space, const Communicator& host)
{
    const index_type first = space.offsets[static_cast<std::size_t>(host.rank())];
    std::vector<GhostBlock> blocks;
    std::vector<index_type> keys(static_cast<std::size_t>(space.owned));
    std::iota(keys.begin(), keys.end(), first);
    for (const index_type global : space.ghost_global) {
        const auto owner = static_cast<int>(
            std::upper_bound(space.offsets.begin(), space.offsets.end(), global) - space.offsets.begin() - 1);
        if (blocks.empty() || blocks.back().owner != owner) blocks.push_back({owner, 0});
        ++blocks.back().count;
        keys.push_back(global);
    }
    space.halo = halo_plan_from_names(host, space.owned, blocks, keys.data(), [&](index_type key) -> index_type {
        return key >= first && key < first + space.owned ? key - first : -1;
    });
}

/// A lower degree's ghosts (its unknowns on ghost nodes) by increasing global number and their
/// halo; order (the owned unknowns) gets them appended.
template <typename V>
void number_ghosts(const PartPayload& part, const std::vector<index_type>& dof_nodes, PartSpace<V>& space,
                   std::vector<index_type>& order, const Communicator& host)
{
    const index_type owned_nodes = part.numbering.layout.owned;
    std::vector<index_type> named_nodes;
    for (const index_type d : order) named_nodes.push_back(dof_nodes[static_cast<std::size_t>(d)]);
    const std::vector<double> names =
        ghost_names(part, named_nodes, space.offsets[static_cast<std::size_t>(host.rank())], host);
    std::vector<std::pair<index_type, index_type>> ghosts;  // (global number, unknown)
    for (std::size_t d = 0; d < dof_nodes.size(); ++d) {
        if (dof_nodes[d] < owned_nodes) continue;
        const double name = names[static_cast<std::size_t>(dof_nodes[d] - owned_nodes)];
        if (name < 0) throw std::logic_error("p-multigrid across ranks: a ghost node's owner has no unknown on it");
        ghosts.emplace_back(static_cast<index_type>(name), static_cast<index_type>(d));
    }
    std::sort(ghosts.begin(), ghosts.end());
    for (const auto& [global, dof] : ghosts) {
        space.ghost_global.push_back(global);
        order.push_back(dof);
    }
    ghost_halo(space, host);
}

/// The lower-degree spaces of the part; rows: the part nodes of the finest space's owned
/// unknowns in the operator's order, on return those of the last space's owned unknowns.
template <typename V>
std::vector<PartSpace<V>> degree_spaces(const PartPayload& part, std::vector<index_type>& rows, const ExecPtr& exec,
                                        const Communicator& host)
{
    std::vector<PartSpace<V>> out;
    const index_type owned_nodes = part.numbering.layout.owned;
    for (DegreeLevel<V>& level : degree_levels<V>(part.part.mesh, exec)) {
        const std::vector<index_type> dof_nodes = level.dof_nodes.to_host();
        PartSpace<V> space;
        space.degree = level.degree;
        std::vector<index_type> order;  // local unknown -> the level's unknown
        for (std::size_t d = 0; d < dof_nodes.size(); ++d)
            if (dof_nodes[d] < owned_nodes) order.push_back(static_cast<index_type>(d));
        space.owned = static_cast<index_type>(order.size());
        space.offsets = rank_offsets(host, space.owned);
        number_ghosts(part, dof_nodes, space, order, host);
        std::vector<index_type> local_of(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) local_of[static_cast<std::size_t>(order[i])] = static_cast<index_type>(i);
        const Csr<V> owned_rows = sparse_product(unit_rows<V>(rows, level.transfer.rows, exec), level.transfer);
        const auto n = static_cast<index_type>(local_of.size());
        space.transfer = sparse_product(owned_rows, unit_rows<V>(local_of, n, exec));
        rows = std::move(order);
        rows.resize(static_cast<std::size_t>(space.owned));
        out.push_back(std::move(space));
    }
    // The last space's rows named by its unknowns' nodes.
    if (!out.empty()) {
        const std::vector<index_type> last_nodes = degree_levels<V>(part.part.mesh, exec).back().dof_nodes.to_host();
        for (index_type& r : rows) r = last_nodes[static_cast<std::size_t>(r)];
    }
    return out;
}


/// The points of a generated grid's level below degree 1 (the grid of boxes / 2^level), each
/// owned by the part that owns the mesh node there (GridBlocks::lowest_block per axis), numbered
/// part after part, each part's in x-fastest order (the order of its mesh nodes). Per axis a
/// table of each coordinate's block and place in it, so that a point's number is a few loads.
class GridLevelNumbering {
public:
    GridLevelNumbering(const ShapeGrid& shape, const GridBlocks& blocks, int level) : blocks_(blocks)
    {
        const long long step = (1LL << level) * shape.grid.k;
        for (std::size_t a = 0; a < 3; ++a) {
            const long long points = static_cast<int>(a) < shape.grid.dim ? (shape.grid.boxes[a] >> level) + 1 : 1;
            std::vector<long long> first(static_cast<std::size_t>(blocks.count[a]), -1);
            for (long long c = 0; c < points; ++c) {
                const int q = static_cast<int>(a) < shape.grid.dim
                                  ? blocks.lowest_block(static_cast<int>(a), c * step, shape.grid.k) : 0;
                if (first[static_cast<std::size_t>(q)] < 0) first[static_cast<std::size_t>(q)] = c;
                block_[a].push_back(q);
                place_[a].push_back(c - first[static_cast<std::size_t>(q)]);
            }
            extent_[a].assign(first.size(), 0);
            for (long long c = 0; c < points; ++c) ++extent_[a][static_cast<std::size_t>(block_[a][static_cast<std::size_t>(c)])];
            first_[a] = std::move(first);
        }
        offsets_.assign(static_cast<std::size_t>(blocks.parts()) + 1, 0);
        for (int p = 0; p < blocks.parts(); ++p) {
            const std::array<long long, 3> e = extents(p);
            const double next = static_cast<double>(offsets_[static_cast<std::size_t>(p)]) + static_cast<double>(e[0] * e[1] * e[2]);
            if (next > 2147483647.0) throw std::runtime_error("p-multigrid across ranks: a grid level has more than 2^31 - 1 points");
            offsets_[static_cast<std::size_t>(p) + 1] = static_cast<index_type>(next);
        }
    }
    /// Part p's first point and, last, the total.
    const std::vector<index_type>& offsets() const { return offsets_; }
    /// The global number of point c (level coordinates).
    index_type global(const Point& c) const
    {
        std::array<int, 3> q{};
        std::array<long long, 3> at{};
        for (std::size_t a = 0; a < 3; ++a) {
            q[a] = block_[a][static_cast<std::size_t>(c[a])];
            at[a] = place_[a][static_cast<std::size_t>(c[a])];
        }
        const int p = blocks_.part_of(q);
        const long long nx = extent_[0][static_cast<std::size_t>(q[0])], ny = extent_[1][static_cast<std::size_t>(q[1])];
        return offsets_[static_cast<std::size_t>(p)] + static_cast<index_type>(at[0] + nx * (at[1] + ny * at[2]));
    }
    /// Part p's point number i (0 .. its count - 1), in its order.
    Point owned_point(int p, long long i) const
    {
        const std::array<int, 3> q = blocks_.block_of(p);
        const std::array<long long, 3> e = extents(p);
        const long long local[3] = {i % e[0], (i / e[0]) % e[1], i / (e[0] * e[1])};
        Point out{};
        for (std::size_t a = 0; a < 3; ++a) out[a] = first_[a][static_cast<std::size_t>(q[a])] + local[a];
        return out;
    }

private:
    std::array<long long, 3> extents(int p) const
    {
        const std::array<int, 3> q = blocks_.block_of(p);
        return {extent_[0][static_cast<std::size_t>(q[0])], extent_[1][static_cast<std::size_t>(q[1])],
                extent_[2][static_cast<std::size_t>(q[2])]};
    }

    GridBlocks blocks_;
    std::array<std::vector<int>, 3> block_;          ///< per axis: each coordinate's block
    std::array<std::vector<long long>, 3> place_;    ///< and its place in that block's points
    std::array<std::vector<long long>, 3> first_;    ///< per axis and block: its first coordinate
    std::array<std::vector<long long>, 3> extent_;   ///< and how many it owns
    std::vector<index_type> offsets_;
};

/// The entries of row f of the interpolation into the finer grid's point f (its level's
/// coordinates) from the corners of the coarse box around it (one corner where f lies on the
/// coarse grid along every axis), as (coarse point, weight) into out; returns how many.
int corner_weights(const Point& f, int dim, std::array<std::pair<Point, double>, 8>& out)
{
    int count = 0;
    for (int corner = 0; corner < (1 << dim); ++corner) {
        Point c{0, 0, 0};
        double weight = 1;
        bool used = true;
        for (int a = 0; a < dim; ++a) {
            const long long x = f[static_cast<std::size_t>(a)];
            const int up = (corner >> a) & 1;
            if (x % 2 == 0) {
                used = used && up == 0;
                c[static_cast<std::size_t>(a)] = x / 2;
            } else {
                c[static_cast<std::size_t>(a)] = (x - 1) / 2 + up;
                weight *= 0.5;
            }
        }
        if (used) out[static_cast<std::size_t>(count++)] = {c, weight};
    }
    return count;
}

/// The points of the columns that are not this rank's (owned: first .. first + owned - 1), each once, increasing.
std::vector<index_type> other_columns(const index_type* col, std::size_t n, index_type first, index_type owned)
{
    std::vector<index_type> out;
#pragma omp parallel
    {
        std::vector<index_type> mine;
#pragma omp for schedule(static) nowait
        for (std::size_t k = 0; k < n; ++k)
            if (col[k] < first || col[k] >= first + owned) mine.push_back(col[k]);
        std::sort(mine.begin(), mine.end());
        mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
#pragma omp critical
        out.insert(out.end(), mine.begin(), mine.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// The grid level `coarse` as a space below the `rows` finer points (point_of(i): row i's, in
/// its level's coordinates): row i the bilinear / trilinear interpolation at that point.
/// Host threads; collective over host.
template <typename V, typename PointOf>
PartSpace<V> grid_space(long long rows, PointOf&& point_of, const GridLevelNumbering& coarse, int dim,
                        const ExecPtr& exec, const Communicator& host)
{
    StageLaps laps;
    PartSpace<V> space;
    space.offsets = coarse.offsets();
    const index_type first = space.offsets[static_cast<std::size_t>(host.rank())];
    space.owned = space.offsets[static_cast<std::size_t>(host.rank()) + 1] - first;
    std::unique_ptr<index_type[]> ptr(new index_type[static_cast<std::size_t>(rows) + 1]);
    ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rows; ++i) {
        const Point f = point_of(i);
        int count = 1;
        for (int a = 0; a < dim; ++a) count *= f[static_cast<std::size_t>(a)] % 2 ? 2 : 1;
        ptr[static_cast<std::size_t>(i) + 1] = count;
    }
    std::inclusive_scan(ptr.get(), ptr.get() + rows + 1, ptr.get());
    const auto nnz = static_cast<std::size_t>(ptr[static_cast<std::size_t>(rows)]);
    std::unique_ptr<index_type[]> col(new index_type[nnz]);
    std::unique_ptr<V[]> val(new V[nnz]);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rows; ++i) {
        std::array<std::pair<Point, double>, 8> entries;
        const int count = corner_weights(point_of(i), dim, entries);
        auto at = static_cast<std::size_t>(ptr[static_cast<std::size_t>(i)]);
        for (int e = 0; e < count; ++e, ++at) {
            col[at] = coarse.global(entries[static_cast<std::size_t>(e)].first);
            val[at] = static_cast<V>(entries[static_cast<std::size_t>(e)].second);
        }
    }
    laps.lap("entries");
    // Columns: the owned points from 0, the others after them by increasing global number.
    space.ghost_global = other_columns(col.get(), nnz, first, space.owned);
    const auto& ghosts = space.ghost_global;
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < nnz; ++k) {
        const index_type g = col[k];
        col[k] = g >= first && g < first + space.owned
                     ? g - first
                     : space.owned + static_cast<index_type>(std::lower_bound(ghosts.begin(), ghosts.end(), g) - ghosts.begin());
    }
    laps.lap("columns");
    ghost_halo(space, host);
    laps.lap("halo");
    space.transfer = Csr<V>{static_cast<index_type>(rows), space.owned + static_cast<index_type>(ghosts.size()),
                            Array<index_type>::from_host(exec, std::span<const index_type>(ptr.get(), static_cast<std::size_t>(rows) + 1)),
                            Array<index_type>::from_host(exec, std::span<const index_type>(col.get(), nnz)),
                            Array<V>::from_host(exec, std::span<const V>(val.get(), nnz))};
    exec->synchronize();
    laps.lap("upload");
    spdlog::debug("coarser grid of {} points ({} owned, {} ghosts): {}", space.offsets.back(), space.owned,
                  ghosts.size(), laps.text);
    return space;
}

/// Whether one rank's p-multigrid coarsens the degree-1 grid of shape: boxes (one cell each)
/// with an even number per unit length, at least 4.
bool coarsens(const ShapeGrid& shape)
{
    return !shape.grid.notch && shape.cells_per_box == 1 && shape.grid.n >= 4 && shape.grid.n % 2 == 0;
}

/// The grids of half the boxes below the degree-1 space whose owned unknowns lie on the part
/// nodes `nodes` (in its row order).
template <typename V>
std::vector<PartSpace<V>> grid_spaces(const PartPayload& part, const std::vector<index_type>& nodes,
                                      const ShapeGrid& shape, const ExecPtr& exec, const Communicator& host)
{
    std::vector<PartSpace<V>> out;
    const GridBlocks blocks = grid_blocks(shape.grid, host.size());
    const auto vertex_of = [&](long long i) {  // the degree-1 space's row i: its node's grid point
        long long p[3];
        shape.grid.point(part.numbering.global[static_cast<std::size_t>(nodes[static_cast<std::size_t>(i)])], p);
        return Point{p[0] / shape.grid.k, p[1] / shape.grid.k, p[2] / shape.grid.k};
    };
    std::optional<GridLevelNumbering> finer;
    long long n = shape.grid.n;
    for (int level = 1; n >= 4 && n % 2 == 0; ++level, n /= 2) {
        GridLevelNumbering coarse(shape, blocks, level);
        const auto rows = static_cast<long long>(out.empty() ? nodes.size() : out.back().owned);
        if (!finer) {
            out.push_back(grid_space<V>(rows, vertex_of, coarse, shape.grid.dim, exec, host));
        } else {
            const GridLevelNumbering& above = *finer;
            const auto point_of = [&](long long i) { return above.owned_point(host.rank(), i); };
            out.push_back(grid_space<V>(rows, point_of, coarse, shape.grid.dim, exec, host));
        }
        finer.emplace(std::move(coarse));
    }
    return out;
}

}  // namespace

template <typename V>
std::vector<PartSpace<V>> part_spaces(const PartPayload& part, const Array<index_type>& permutation,
                                      const ShapeGrid* shape, const ExecPtr& exec, const Communicator& host)
{
    if (part.part.mesh.is_mixed()) return {};
    std::vector<index_type> rows(static_cast<std::size_t>(part.numbering.layout.owned));
    if (permutation.empty()) std::iota(rows.begin(), rows.end(), index_type(0));
    else rows = permutation.to_host();
    std::vector<PartSpace<V>> out = degree_spaces<V>(part, rows, exec, host);
    if (shape && coarsens(*shape))
        for (PartSpace<V>& space : grid_spaces<V>(part, rows, *shape, exec, host)) out.push_back(std::move(space));
    return out;
}

template std::vector<PartSpace<float>> part_spaces(const PartPayload&, const Array<index_type>&, const ShapeGrid*,
                                                   const ExecPtr&, const Communicator&);
template std::vector<PartSpace<double>> part_spaces(const PartPayload&, const Array<index_type>&, const ShapeGrid*,
                                                    const ExecPtr&, const Communicator&);

}  // namespace gpufem
