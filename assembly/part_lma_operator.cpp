#include "assembly/part_lma_operator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "assembly/mixed_lma_operator.hpp"
#include "linalg/array_prefix.hpp"
#include "linalg/split_kernels.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {
namespace {

/// One cell type's LMA operator and where its slots split: [0, split) before the halo,
/// [split, cells) after it.
template <typename V>
struct BlockSlots {
    const LmaOperator<V>* op = nullptr;
    index_type split = 0;
    index_type cells = 0;
};

/// Bytes an apply of `cells` slots of op moves at least: their matrices and connectivity,
/// and x gathered per cell node.
template <typename V>
std::size_t slot_bytes(const LmaOperator<V>& op, index_type cells)
{
    const LmaArgs<V> a = op.stored();
    const auto n = static_cast<std::size_t>(cells);
    return n * (lma_entries_per_cell(a.npe, a.symmetric) * sizeof(V) + a.npe * (sizeof(index_type) + sizeof(V)));
}

/// The cells whose nodes are all owned, applied beside the halo, with the Dirichlet rows.
template <typename V>
class LmaInteriorCells final : public LinearOperator<V> {
public:
    LmaInteriorCells(std::shared_ptr<const LinearOperator<V>> whole, std::vector<BlockSlots<V>> blocks,
                     index_type owned, Array<index_type> dirichlet)
        : whole_(std::move(whole)), blocks_(std::move(blocks)), owned_(owned), dirichlet_(std::move(dirichlet))
    {
        this->set_diagonal(leading(whole_->diagonal(), static_cast<std::size_t>(owned)));
    }

    index_type rows() const override { return owned_; }
    index_type cols() const override { return owned_; }
    const ExecPtr& executor() const override { return whole_->executor(); }
    std::string format() const override { return "lma"; }
    /// The whole part's element matrices (the boundary cells' included: they share the arrays).
    std::size_t bytes_stored() const override { return whole_->bytes_stored(); }
    std::size_t spmv_min_bytes() const override
    {
        std::size_t bytes = 2 * static_cast<std::size_t>(owned_) * sizeof(V) +
                            dirichlet_.size() * (sizeof(index_type) + 3 * sizeof(V));
        for (const BlockSlots<V>& b : blocks_) bytes += slot_bytes(*b.op, b.split);
        return bytes;
    }
    std::string parameters() const override { return whole_->parameters(); }
    bool graph_capturable() const override { return whole_->graph_capturable(); }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        const Executor& e = *executor();
        GPUFEM_DISPATCH(e, lma_prepare(e, owned_, alpha, x.data(), beta, y.data(), dirichlet_.data(),
                                       static_cast<index_type>(dirichlet_.size()), this->diagonal_.data()));
        for (const BlockSlots<V>& b : blocks_)
            GPUFEM_DISPATCH(e, lma_apply_cells(e, b.op->stored(), 0, b.split, alpha, x.data(), y.data(), true,
                                               b.op->kernel()));
    }

private:
    std::shared_ptr<const LinearOperator<V>> whole_;
    std::vector<BlockSlots<V>> blocks_;
    index_type owned_;
    Array<index_type> dirichlet_;  ///< the owned Dirichlet rows
};

/// The cells that hold a ghost node: they read and write a staging vector in the part's
/// numbering (the owned values they read copied in, the ghosts after them), and their owned
/// rows are added into y.
template <typename V>
class LmaBoundaryCells final : public GhostColumns<V> {
public:
    LmaBoundaryCells(std::shared_ptr<const LinearOperator<V>> whole, std::vector<BlockSlots<V>> blocks,
                     index_type owned, index_type ghosts, Array<index_type> rows)
        : whole_(std::move(whole)), blocks_(std::move(blocks)), owned_(owned), ghosts_(ghosts),
          rows_(std::move(rows)), staged_x_(whole_->executor(), static_cast<std::size_t>(owned + ghosts)),
          staged_y_(whole_->executor(), static_cast<std::size_t>(owned + ghosts))
    {
        zero_bytes(*whole_->executor(), staged_y_.data(), staged_y_.bytes());
    }

    void apply(V alpha, const Array<V>& x, const Array<V>& ghosts, Array<V>& y) const override
    {
        const Executor& e = *whole_->executor();
        const auto n = static_cast<index_type>(rows_.size());
        GPUFEM_DISPATCH(e, stage_boundary_values(e, n, rows_.data(), x.data(), owned_, ghosts_, ghosts.data(),
                                                 staged_x_.data()));
        for (const BlockSlots<V>& b : blocks_)
            GPUFEM_DISPATCH(e, lma_apply_cells(e, b.op->stored(), b.split, b.cells, alpha, staged_x_.data(),
                                               staged_y_.data(), true, b.op->kernel()));
        GPUFEM_DISPATCH(e, add_boundary_rows(e, n, rows_.data(), staged_y_.data(), owned_, ghosts_, y.data()));
    }
    /// The staging vectors and the rows' numbers (the matrices count with the interior's).
    std::size_t bytes_stored() const override { return staged_x_.bytes() + staged_y_.bytes() + rows_.bytes(); }
    std::size_t spmv_min_bytes() const override
    {
        std::size_t bytes = rows_.size() * (sizeof(index_type) + 5 * sizeof(V)) + 3 * ghosts_ * sizeof(V);
        for (const BlockSlots<V>& b : blocks_) bytes += slot_bytes(*b.op, b.cells - b.split);
        return bytes;
    }
    std::string parameters() const override
    {
        index_type after = 0;
        for (const BlockSlots<V>& b : blocks_) after += b.cells - b.split;
        return std::to_string(after) + " cells after the halo";
    }

private:
    std::shared_ptr<const LinearOperator<V>> whole_;
    std::vector<BlockSlots<V>> blocks_;
    index_type owned_, ghosts_;
    Array<index_type> rows_;  ///< the owned nodes of the cells after the halo, ascending
    mutable Array<V> staged_x_, staged_y_;
};

/// Whether cell c has a node past the owned ones (a ghost).
bool holds_ghost(const Mesh& mesh, index_type c, index_type owned)
{
    const index_type* row = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
    return std::any_of(row, row + mesh.nodes_per_cell, [owned](index_type node) { return node >= owned; });
}

/// The mesh with the cells whose nodes are all owned first, then the others (each group in
/// its order); every per-cell array (types, groups, cell data) follows. interior: the first group's size.
Mesh interior_cells_first(const Mesh& mesh, index_type owned, index_type& interior)
{
    std::vector<index_type> order, later;
    for (index_type c = 0; c < mesh.num_cells(); ++c) (holds_ghost(mesh, c, owned) ? later : order).push_back(c);
    interior = static_cast<index_type>(order.size());
    order.insert(order.end(), later.begin(), later.end());
    Mesh out = mesh;
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto c = static_cast<std::size_t>(order[k]);
        std::copy_n(&mesh.cells[c * npc], npc, &out.cells[k * npc]);
        if (mesh.is_mixed()) out.cell_types[k] = mesh.cell_types[c];
        if (!mesh.cell_group.empty()) out.cell_group[k] = mesh.cell_group[c];
    }
    out.cell_fields = cell_fields_of(mesh.cell_fields, order);
    out.device.reset();
    out.generated_grid = {};
    out.refined_from.reset();
    return out;
}

/// The LMA operators of the system's cell types, in the order assemble_lma_system makes them
/// (one per type present, in ElementType order).
template <typename V>
std::vector<const LmaOperator<V>*> type_operators(const LinearOperator<V>& op)
{
    if (const auto* single = dynamic_cast<const LmaOperator<V>*>(&op)) return {single};
    std::vector<const LmaOperator<V>*> out;
    for (const auto& block : dynamic_cast<const MixedLmaOperator<V>&>(op).blocks()) out.push_back(block.get());
    return out;
}

/// Each type's slots split where its interior cells end, rounded down to an aligned slot;
/// after: the owned nodes of the cells past the split, ascending.
template <typename V>
std::vector<BlockSlots<V>> split_slots(const Mesh& ordered, index_type interior, index_type owned,
                                       const LinearOperator<V>& op, std::vector<index_type>& after)
{
    std::vector<index_type> split_of(element_type_count, 0), count_of(element_type_count, 0);
    for (index_type c = 0; c < ordered.num_cells(); ++c) {
        const auto t = static_cast<std::size_t>(ordered.type_of_cell(c));
        split_of[t] += c < interior;
        ++count_of[t];
    }
    for (index_type& split : split_of) split = split / lma_position_alignment * lma_position_alignment;
    std::vector<BlockSlots<V>> blocks;
    const std::vector<const LmaOperator<V>*> ops = type_operators(op);
    for (int t = 0; t < element_type_count; ++t)
        if (count_of[t] > 0) blocks.push_back({ops.at(blocks.size()), split_of[t], count_of[t]});
    std::vector<index_type> seen(element_type_count, 0);
    std::vector<std::uint8_t> marked(static_cast<std::size_t>(owned), 0);
    const auto npc = static_cast<std::size_t>(ordered.nodes_per_cell);
    for (index_type c = 0; c < ordered.num_cells(); ++c) {
        const auto t = static_cast<std::size_t>(ordered.type_of_cell(c));
        if (seen[t]++ < split_of[t]) continue;
        for (std::size_t k = 0; k < npc; ++k) {
            const index_type node = ordered.cells[static_cast<std::size_t>(c) * npc + k];
            if (node >= 0 && node < owned) marked[static_cast<std::size_t>(node)] = 1;
        }
    }
    for (index_type i = 0; i < owned; ++i)
        if (marked[static_cast<std::size_t>(i)]) after.push_back(i);
    return blocks;
}

}  // namespace

template <typename V>
PartLmaSystem<V> assemble_part_lma_system(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                          const ProblemSpec& problem, const LmaOptions& options,
                                          const DirichletAdjustment<V>& owners_dirichlet)
{
    if (options.scatter != LmaScatter::atomic)
        throw std::invalid_argument("assemble_part_lma_system: the atomic scatter only (a colour mixes the cells "
                                    "before and after the halo)");
    index_type interior = 0;
    const Mesh ordered = interior_cells_first(mesh, owned, interior);
    std::vector<std::uint8_t> mask;
    const DirichletAdjustment<V> adjust = [&](DirichletData<V>& data) {
        if (owners_dirichlet) owners_dirichlet(data);
        mask = data.mask.to_host();
        data.count = static_cast<index_type>(std::count(mask.begin(), mask.end(), std::uint8_t(1)));
    };
    LmaSystem<V> system = assemble_lma_system<V>(exec, ordered, problem, options, adjust);
    const std::shared_ptr<const LinearOperator<V>> whole(std::move(system.format.op));

    PartLmaSystem<V> out;
    std::vector<index_type> after, dirichlet;
    std::vector<BlockSlots<V>> blocks = split_slots(ordered, interior, owned, *whole, after);
    for (index_type i = 0; i < owned && !mask.empty(); ++i)
        if (mask[static_cast<std::size_t>(i)]) dirichlet.push_back(i);
    for (const BlockSlots<V>& b : blocks) {
        out.interior_cells += b.split;
        out.boundary_cells += b.cells - b.split;
    }
    const index_type ghosts = mesh.num_nodes() - owned;
    out.interior = std::make_unique<LmaInteriorCells<V>>(whole, blocks, owned, Array<index_type>::from_host(exec, dirichlet));
    out.boundary = std::make_unique<LmaBoundaryCells<V>>(whole, std::move(blocks), owned, ghosts,
                                                         Array<index_type>::from_host(exec, after));
    out.rhs = leading(system.rhs, static_cast<std::size_t>(owned));
    out.initial_guess = leading(system.initial_guess, static_cast<std::size_t>(owned));
    out.dirichlet_count = static_cast<index_type>(dirichlet.size());
    out.times = system.times;
    exec->synchronize();
    return out;
}

template PartLmaSystem<float> assemble_part_lma_system(const ExecPtr&, const Mesh&, index_type, const ProblemSpec&,
                                                       const LmaOptions&, const DirichletAdjustment<float>&);
template PartLmaSystem<double> assemble_part_lma_system(const ExecPtr&, const Mesh&, index_type, const ProblemSpec&,
                                                        const LmaOptions&, const DirichletAdjustment<double>&);

}  // namespace gpufem
