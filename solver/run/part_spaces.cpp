#include "solver/run/part_spaces.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "assembly/lagrange_interpolation.hpp"
#include "linalg/halo_plan_keys.hpp"
#include "mesh/grid_blocks.hpp"
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
/// part after part, each part's in x-fastest order (the order of its mesh nodes).
class GridLevelNumbering {
public:
    GridLevelNumbering(const ShapeGrid& shape, const GridBlocks& blocks, int level)
        : blocks_(blocks), dim_(shape.grid.dim), k_(shape.grid.k), step_((1LL << level) * shape.grid.k)
    {
        for (int a = 0; a < 3; ++a) {
            const long long points = a < dim_ ? (shape.grid.boxes[a] >> level) + 1 : 1;
            auto& range = ranges_[static_cast<std::size_t>(a)];
            range.assign(static_cast<std::size_t>(blocks.count[static_cast<std::size_t>(a)]), {0, -1});
            for (long long c = 0; c < points; ++c) {
                auto& r = range[static_cast<std::size_t>(block(a, c))];
                if (r.second < r.first) r.first = c;
                r.second = c;
            }
        }
        offsets_.assign(static_cast<std::size_t>(blocks.parts()) + 1, 0);
        for (int p = 0; p < blocks.parts(); ++p) {
            const auto box = owned_box(p);
            long long count = 1;
            for (std::size_t a = 0; a < 3; ++a) count *= std::max(0LL, box[a].second - box[a].first + 1);
            if (static_cast<double>(offsets_[static_cast<std::size_t>(p)]) + static_cast<double>(count) > 2147483647.0)
                throw std::runtime_error("p-multigrid across ranks: a grid level has more than 2^31 - 1 points");
            offsets_[static_cast<std::size_t>(p) + 1] = offsets_[static_cast<std::size_t>(p)] + static_cast<index_type>(count);
        }
    }
    /// Part p's first point and, last, the total.
    const std::vector<index_type>& offsets() const { return offsets_; }
    /// The global number of point c (level coordinates).
    index_type global(const Point& c) const
    {
        std::array<int, 3> q{};
        for (int a = 0; a < 3; ++a) q[static_cast<std::size_t>(a)] = block(a, c[static_cast<std::size_t>(a)]);
        const int p = blocks_.part_of(q);
        const auto box = owned_box(p);
        const long long nx = box[0].second - box[0].first + 1, ny = box[1].second - box[1].first + 1;
        const long long local = (c[0] - box[0].first) + nx * ((c[1] - box[1].first) + ny * (c[2] - box[2].first));
        return offsets_[static_cast<std::size_t>(p)] + static_cast<index_type>(local);
    }
    /// Part p's points in their order.
    std::vector<Point> owned_points(int p) const
    {
        const auto box = owned_box(p);
        std::vector<Point> out;
        for (long long z = box[2].first; z <= box[2].second; ++z)
            for (long long y = box[1].first; y <= box[1].second; ++y)
                for (long long x = box[0].first; x <= box[0].second; ++x) out.push_back({x, y, z});
        return out;
    }

private:
    int block(int a, long long c) const { return a < dim_ ? blocks_.lowest_block(a, c * step_, k_) : 0; }
    std::array<std::pair<long long, long long>, 3> owned_box(int p) const
    {
        const std::array<int, 3> q = blocks_.block_of(p);
        std::array<std::pair<long long, long long>, 3> box;
        for (std::size_t a = 0; a < 3; ++a) box[a] = ranges_[a][static_cast<std::size_t>(q[a])];
        return box;
    }

    GridBlocks blocks_;
    int dim_, k_;
    long long step_;  ///< mesh lattice points between two points of the level
    std::array<std::vector<std::pair<long long, long long>>, 3> ranges_;  ///< per axis and block: its points
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

/// The grid level `coarse` as a space below the finer points (their level's coordinates, in
/// the finer space's row order): row i the bilinear / trilinear interpolation at finer point i.
/// Host threads; collective over host.
template <typename V>
PartSpace<V> grid_space(const std::vector<Point>& finer, const GridLevelNumbering& coarse, int dim,
                        const ExecPtr& exec, const Communicator& host)
{
    PartSpace<V> space;
    space.offsets = coarse.offsets();
    const index_type first = space.offsets[static_cast<std::size_t>(host.rank())];
    space.owned = space.offsets[static_cast<std::size_t>(host.rank()) + 1] - first;
    const auto rows = static_cast<long long>(finer.size());
    std::vector<index_type> ptr(finer.size() + 1, 0);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rows; ++i) {
        int count = 1;
        for (int a = 0; a < dim; ++a) count *= finer[static_cast<std::size_t>(i)][static_cast<std::size_t>(a)] % 2 ? 2 : 1;
        ptr[static_cast<std::size_t>(i) + 1] = count;
    }
    std::inclusive_scan(ptr.begin(), ptr.end(), ptr.begin());
    std::vector<index_type> col(static_cast<std::size_t>(ptr.back()));
    std::vector<V> val(col.size());
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rows; ++i) {
        std::array<std::pair<Point, double>, 8> entries;
        const int count = corner_weights(finer[static_cast<std::size_t>(i)], dim, entries);
        auto at = static_cast<std::size_t>(ptr[static_cast<std::size_t>(i)]);
        for (int e = 0; e < count; ++e, ++at) {
            col[at] = coarse.global(entries[static_cast<std::size_t>(e)].first);
            val[at] = static_cast<V>(entries[static_cast<std::size_t>(e)].second);
        }
    }
    // Columns: the owned points from 0, the others after them by increasing global number.
    for (const index_type g : col)
        if (g < first || g >= first + space.owned) space.ghost_global.push_back(g);
    std::sort(space.ghost_global.begin(), space.ghost_global.end());
    space.ghost_global.erase(std::unique(space.ghost_global.begin(), space.ghost_global.end()), space.ghost_global.end());
    const auto& ghosts = space.ghost_global;
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < col.size(); ++k) {
        const index_type g = col[k];
        col[k] = g >= first && g < first + space.owned
                     ? g - first
                     : space.owned + static_cast<index_type>(std::lower_bound(ghosts.begin(), ghosts.end(), g) - ghosts.begin());
    }
    ghost_halo(space, host);
    space.transfer = Csr<V>{static_cast<index_type>(rows), space.owned + static_cast<index_type>(ghosts.size()),
                            Array<index_type>::from_host(exec, ptr), Array<index_type>::from_host(exec, col),
                            Array<V>::from_host(exec, val)};
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
    std::vector<Point> finer(nodes.size());
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        long long p[3];
        shape.grid.point(part.numbering.global[static_cast<std::size_t>(nodes[i])], p);
        finer[i] = {p[0] / shape.grid.k, p[1] / shape.grid.k, p[2] / shape.grid.k};
    }
    long long n = shape.grid.n;
    for (int level = 1; n >= 4 && n % 2 == 0; ++level, n /= 2) {
        const GridLevelNumbering coarse(shape, blocks, level);
        out.push_back(grid_space<V>(finer, coarse, shape.grid.dim, exec, host));
        finer = coarse.owned_points(host.rank());
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
