#include "solver/run/part_spaces.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>

#include <spdlog/spdlog.h>

#include "assembly/lagrange_interpolation.hpp"
#include "mesh/grid_blocks.hpp"
#include "mesh/stage_laps.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/distributed_levels.hpp"

namespace gpufem {
namespace {

/// The global number, in the numbering that starts at first, of each ghost node's unknown
/// (-1 where the ghost carries none): every rank names the unknowns on the owned nodes its halo
/// sends (owned_nodes: the nodes of its unknowns, increasing) and the part's halo brings the
/// names to the nodes' other holders.
std::vector<double> ghost_names(const PartPayload& part, const std::vector<index_type>& owned_nodes,
                                index_type first, const Communicator& host)
{
    const ExecPtr cpu = Executor::create_cpu();
    HaloPlan compact = part.halo;  // the same messages, read from the names of the nodes sent
    std::vector<double> sent;
    for (HaloPlan::Send& send : compact.sends)
        for (index_type& node : send.local) {
            const auto at = std::lower_bound(owned_nodes.begin(), owned_nodes.end(), node);
            const bool named = at != owned_nodes.end() && *at == node;
            sent.push_back(named ? static_cast<double>(first) + static_cast<double>(at - owned_nodes.begin()) : -1.0);
            node = static_cast<index_type>(sent.size() - 1);
        }
    const HaloExchange<double> halo(compact, cpu, host);
    Array<double> ghosts(cpu, static_cast<std::size_t>(part.halo.ghosts()));
    halo.update(Array<double>::from_host(cpu, sent), ghosts);
    return ghosts.to_host();
}

/// A lower degree's ghosts (its unknowns on ghost nodes) by increasing global number and their
/// halo; order (the owned unknowns) gets them appended.
template <typename V>
void number_ghosts(const PartPayload& part, const std::vector<index_type>& dof_nodes, PartSpace<V>& space,
                   std::vector<index_type>& order, const Communicator& host)
{
    const index_type owned_nodes = part.numbering.layout.owned;
    std::vector<index_type> named_nodes;  // increasing: the unknowns are numbered in node order
    named_nodes.reserve(order.size());
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
    space.halo = ghost_halo(host, space.owned, space.offsets, space.ghost_global);
}

/// The lower-degree spaces of the part (through degree 2 on triangles and tetrahedra of
/// degree 3 with through_degree_two); rows: the part nodes of the finest space's owned
/// unknowns in the operator's order, on return those of the last space's owned unknowns.
template <typename V>
std::vector<PartSpace<V>> degree_spaces(const PartPayload& part, std::vector<index_type>& rows, const ExecPtr& exec,
                                        const Communicator& host, bool through_degree_two)
{
    std::vector<PartSpace<V>> out;
    const index_type owned_nodes = part.numbering.layout.owned;
    std::vector<index_type> dof_nodes;
    const Mesh& mesh = part.part.mesh;
    const std::vector<int> degrees = pmg_coarse_degrees(mesh.degree, false, through_degree_two && has_simplex_cells(mesh));
    for (DegreeLevel<V>& level : degree_levels<V>(mesh, exec, false, true, degrees)) {
        StageLaps laps;
        dof_nodes = level.space.dof_nodes.to_host();
        PartSpace<V> space;
        space.degree = level.space.degree();
        std::vector<index_type> order;  // local unknown -> the level's unknown
        for (std::size_t d = 0; d < dof_nodes.size(); ++d)
            if (dof_nodes[d] < owned_nodes) order.push_back(static_cast<index_type>(d));
        space.owned = static_cast<index_type>(order.size());
        space.offsets = rank_offsets(host, space.owned);
        number_ghosts(part, dof_nodes, space, order, host);
        laps.lap("numbered");
        std::vector<index_type> local_of(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) local_of[static_cast<std::size_t>(order[i])] = static_cast<index_type>(i);
        // The finer space's owned rows in its order: the leading rows unless reordered.
        bool leading = true;
        for (std::size_t i = 0; i < rows.size() && leading; ++i) leading = rows[i] == static_cast<index_type>(i);
        Csr<V> owned_rows = leading ? row_slice(level.transfer, 0, static_cast<index_type>(rows.size()))
                                          : sparse_product(unit_rows<V>(rows, level.transfer.rows, exec), level.transfer);
        space.transfer = renumbered_columns(std::move(owned_rows), local_of, static_cast<index_type>(local_of.size()));
        exec->synchronize();
        laps.lap("transfer");
        spdlog::debug("degree-{} space of {} unknowns ({} owned, {} ghosts): {}", space.degree, space.offsets.back(),
                      space.owned, space.ghost_global.size(), laps.text);
        rows = std::move(order);
        rows.resize(static_cast<std::size_t>(space.owned));
        out.push_back(std::move(space));
    }
    if (!out.empty())  // the last space's rows named by its unknowns' nodes
        for (index_type& r : rows) r = dof_nodes[static_cast<std::size_t>(r)];
    return out;
}

/// The points of a level of a generated grid (the grid of boxes / 2^level; level 0: the
/// vertices), each owned by the part that owns the mesh node there (GridBlocks::lowest_block per
/// axis), numbered part after part, each part's in x-fastest order (the order of its mesh
/// nodes): the tables of GridLevelView, on the host.
class GridLevelNumbering {
public:
    GridLevelNumbering(const ShapeGrid& shape, const GridBlocks& blocks, int level) : blocks_(blocks)
    {
        const long long step = (1LL << level) * shape.grid.k;
        for (std::size_t a = 0; a < 3; ++a) {
            const bool axis = static_cast<int>(a) < shape.grid.dim;
            const long long points = axis ? (shape.grid.boxes[a] >> level) + 1 : 1;
            first_[a].assign(static_cast<std::size_t>(blocks.count[a]), -1);
            extent_[a].assign(static_cast<std::size_t>(blocks.count[a]), 0);
            for (long long c = 0; c < points; ++c) {
                const int q = axis ? blocks.lowest_block(static_cast<int>(a), c * step, shape.grid.k) : 0;
                auto& first = first_[a][static_cast<std::size_t>(q)];
                if (first < 0) first = c;
                block_[a].push_back(q);
                place_[a].push_back(static_cast<index_type>(c - first));
                ++extent_[a][static_cast<std::size_t>(q)];
            }
        }
        offsets_.assign(static_cast<std::size_t>(blocks.parts()) + 1, 0);
        for (int p = 0; p < blocks.parts(); ++p) {
            const double next = static_cast<double>(offsets_[static_cast<std::size_t>(p)]) + static_cast<double>(box(p).count());
            if (next > 2147483647.0) throw std::runtime_error("p-multigrid across ranks: a grid level has more than 2^31 - 1 points");
            offsets_[static_cast<std::size_t>(p) + 1] = static_cast<index_type>(next);
        }
    }
    /// Part p's first point and, last, the total.
    const std::vector<index_type>& offsets() const { return offsets_; }
    /// Part p's points.
    GridBox box(int p) const
    {
        const std::array<int, 3> q = blocks_.block_of(p);
        GridBox out;
        for (std::size_t a = 0; a < 3; ++a) {
            out.lo[a] = first_[a][static_cast<std::size_t>(q[a])];
            out.extent[a] = extent_[a][static_cast<std::size_t>(q[a])];
        }
        return out;
    }
    /// The view of the tables on the host.
    GridLevelView view() const
    {
        GridLevelView v;
        for (std::size_t a = 0; a < 3; ++a) {
            v.blocks[a] = blocks_.count[a];
            v.block[a] = block_[a].data();
            v.place[a] = place_[a].data();
            v.extent[a] = extent_[a].data();
        }
        v.offsets = offsets_.data();
        return v;
    }
    /// The tables on exec, and their view there.
    struct OnExec {
        std::array<Array<int>, 3> block;
        std::array<Array<index_type>, 3> place, extent;
        Array<index_type> offsets;
        GridLevelView view;
    };
    OnExec on(const ExecPtr& exec) const
    {
        OnExec out;
        out.view = view();
        for (std::size_t a = 0; a < 3; ++a) {
            out.block[a] = Array<int>::from_host(exec, block_[a]);
            out.place[a] = Array<index_type>::from_host(exec, place_[a]);
            out.extent[a] = Array<index_type>::from_host(exec, extent_[a]);
            out.view.block[a] = out.block[a].data();
            out.view.place[a] = out.place[a].data();
            out.view.extent[a] = out.extent[a].data();
        }
        out.offsets = Array<index_type>::from_host(exec, offsets_);
        out.view.offsets = out.offsets.data();
        return out;
    }

private:
    GridBlocks blocks_;
    std::array<std::vector<int>, 3> block_;               ///< per axis: each coordinate's block
    std::array<std::vector<index_type>, 3> place_;        ///< and its place in that block's points
    std::array<std::vector<long long>, 3> first_;         ///< per axis and block: its first coordinate
    std::array<std::vector<index_type>, 3> extent_;       ///< and how many it owns
    std::vector<index_type> offsets_;
};

/// The coarse points the rows of finer's box interpolate from that another rank owns (those
/// of the coarse box around finer's points outside [first, first + owned)), increasing.
std::vector<index_type> ghost_points(const GridBox& finer, int dim, const GridLevelNumbering& coarse, index_type first,
                                     index_type owned)
{
    GridBox around;
    for (int a = 0; a < dim; ++a) {
        around.lo[a] = finer.lo[a] / 2;
        around.extent[a] = (finer.lo[a] + finer.extent[a]) / 2 - around.lo[a] + 1;
    }
    const GridLevelView view = coarse.view();
    std::vector<index_type> out;
#pragma omp parallel
    {
        std::vector<index_type> mine;
#pragma omp for schedule(static) nowait
        for (long long i = 0; i < around.count(); ++i) {
            long long c[3];
            around.point(i, c);
            const index_type g = view.global(c);
            if (g < first || g >= first + owned) mine.push_back(g);
        }
#pragma omp critical
        out.insert(out.end(), mine.begin(), mine.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// The grid level `coarse` as a space below the points of finer (a box of the next finer level,
/// in x-fastest order): row i the bilinear / trilinear interpolation at its point i, made on
/// exec. Collective over host.
template <typename V>
PartSpace<V> grid_space(const GridBox& finer, const GridLevelNumbering& coarse, int dim, const ExecPtr& exec,
                        const Communicator& host)
{
    StageLaps laps;
    const Executor& e = *exec;
    PartSpace<V> space;
    space.offsets = coarse.offsets();
    const index_type first = space.offsets[static_cast<std::size_t>(host.rank())], total = space.offsets.back();
    space.owned = space.offsets[static_cast<std::size_t>(host.rank()) + 1] - first;
    const auto rows = static_cast<index_type>(finer.count());
    Array<index_type> ptr(exec, static_cast<std::size_t>(rows) + 1);
    const index_type nnz = GPUFEM_DISPATCH(e, amg_grid_transfer_offsets(e, finer, dim, ptr.data()));
    Array<index_type> col(exec, static_cast<std::size_t>(nnz));
    Array<V> val(exec, static_cast<std::size_t>(nnz));
    const GridLevelNumbering::OnExec tables = coarse.on(exec);
    GPUFEM_DISPATCH(e, amg_grid_transfer_entries(e, finer, dim, tables.view, ptr.data(), col.data(), val.data()));
    laps.lap("entries");
    // Columns: the owned points from 0, the others after them by increasing global number.
    space.ghost_global = ghost_points(finer, dim, coarse, first, space.owned);
    const Array<index_type> ghosts = Array<index_type>::from_host(exec, space.ghost_global);
    GPUFEM_DISPATCH(e, amg_localize_columns(e, static_cast<std::size_t>(nnz), first, space.owned, ghosts.data(),
                                            static_cast<index_type>(space.ghost_global.size()), col.data()));
    laps.lap("columns");
    space.halo = ghost_halo(host, space.owned, space.offsets, space.ghost_global);
    laps.lap("halo");
    space.transfer = Csr<V>{rows, space.owned + static_cast<index_type>(space.ghost_global.size()), std::move(ptr),
                            std::move(col), std::move(val)};
    std::vector<GridBox> boxes;
    for (int q = 0; q < host.size(); ++q) boxes.push_back(coarse.box(q));
    space.lattice = coarse_lattice(space.offsets, boxes, dim, exec);
    laps.lap("lattice");
    exec->synchronize();
    spdlog::debug("coarser grid of {} points ({} owned, {} ghosts): {}", total, space.owned, space.ghost_global.size(),
                  laps.text);
    return space;
}

/// Whether one rank's p-multigrid coarsens the degree-1 grid of shape: boxes (one cell each)
/// with an even number per unit length, at least 4.
bool coarsens(const ShapeGrid& shape)
{
    return !shape.grid.notch && shape.cells_per_box == 1 && shape.grid.n >= 4 && shape.grid.n % 2 == 0;
}

/// The grids of half the boxes below the degree-1 space, whose owned unknowns are the rank's
/// vertices of the grid in x-fastest order (vertices: how many; rows: the part nodes of its
/// rows when its operator orders them otherwise: the first transfer's rows picked in that order).
template <typename V>
std::vector<PartSpace<V>> grid_spaces(index_type vertices, const std::vector<index_type>& rows, bool reordered,
                                      const ShapeGrid& shape, const ExecPtr& exec, const Communicator& host)
{
    std::vector<PartSpace<V>> out;
    const GridBlocks blocks = grid_blocks(shape.grid, host.size());
    GridLevelNumbering finer(shape, blocks, 0);
    if (finer.box(host.rank()).count() != static_cast<long long>(vertices))
        throw std::logic_error("p-multigrid across ranks: the rank's vertices are not its block of the grid");
    long long n = shape.grid.n;
    for (int level = 1; n >= 4 && n % 2 == 0; ++level, n /= 2) {
        GridLevelNumbering coarse(shape, blocks, level);
        out.push_back(grid_space<V>(finer.box(host.rank()), coarse, shape.grid.dim, exec, host));
        finer = std::move(coarse);
    }
    if (reordered && !out.empty()) {
        Csr<V>& first = out.front().transfer;
        first = sparse_product(unit_rows<V>(rows, first.rows, exec), first);
    }
    return out;
}

}  // namespace

template <typename V>
std::vector<PartSpace<V>> part_spaces(const PartPayload& part, const Array<index_type>& permutation,
                                      const ShapeGrid* shape, const ExecPtr& exec, const Communicator& host,
                                      bool through_degree_two)
{
    // The finer rows in the operator's order: listed only where they are used (a lower degree
    // or a reordering), not the tens of millions of 0, 1, 2, ... of a plain degree-1 part.
    std::vector<index_type> rows;
    if (!permutation.empty()) {
        rows = permutation.to_host();
    } else if (part.part.mesh.degree > 1) {
        rows.resize(static_cast<std::size_t>(part.numbering.layout.owned));
        std::iota(rows.begin(), rows.end(), index_type(0));
    }
    std::vector<PartSpace<V>> out = degree_spaces<V>(part, rows, exec, host, through_degree_two);
    // Below degree 1 the rows are the vertices in node order, the part's (x-fastest on its
    // block), unless the operator reorders the degree-1 unknowns themselves.
    const bool reordered = out.empty() && !permutation.empty();
    if (shape && coarsens(*shape))
        for (PartSpace<V>& space : grid_spaces<V>(rows.empty() ? part.numbering.layout.owned : static_cast<index_type>(rows.size()),
                                                  rows, reordered, *shape, exec, host))
            out.push_back(std::move(space));
    return out;
}

template <typename V>
std::vector<PartSpace<V>> preconditioner_spaces(const CaseSpec& spec, const PartPayload& part,
                                                const Array<index_type>& permutation, const ExecPtr& exec,
                                                const Communicator& host)
{
    if (!spec.solver.preconditioner->needs.space_hierarchy || spec.discretisation == DiscretisationKind::fv) return {};
    const std::optional<ShapeGrid> shape = box_shape_grid(spec.mesh);
    std::vector<PartSpace<V>> spaces = part_spaces<V>(part, permutation, shape ? &*shape : nullptr, exec, host,
                                                      spec.solver.amg.through_degree_two);
    if (spaces.empty() && host.rank() == 0)
        spdlog::info("preconditioner {}: no coarser space of the mesh across ranks (one of degree 1 that is not a "
                     "generated grid of boxes), so amg alone", spec.solver.preconditioner->name);
    return spaces;
}

template std::vector<PartSpace<float>> part_spaces(const PartPayload&, const Array<index_type>&, const ShapeGrid*,
                                                   const ExecPtr&, const Communicator&, bool);
template std::vector<PartSpace<double>> part_spaces(const PartPayload&, const Array<index_type>&, const ShapeGrid*,
                                                    const ExecPtr&, const Communicator&, bool);
template std::vector<PartSpace<float>> preconditioner_spaces(const CaseSpec&, const PartPayload&,
                                                             const Array<index_type>&, const ExecPtr&,
                                                             const Communicator&);
template std::vector<PartSpace<double>> preconditioner_spaces(const CaseSpec&, const PartPayload&,
                                                              const Array<index_type>&, const ExecPtr&,
                                                              const Communicator&);

}  // namespace gpufem
