#include "assembly/part_lma_operator.hpp"

#include <memory>
#include <stdexcept>
#include <vector>

#include <spdlog/spdlog.h>

#include "assembly/mixed_lma_operator.hpp"
#include "assembly/phase_clock.hpp"

namespace gpufem {
namespace {

/// One cell type's LMA operator and where its slots split: [0, split) before the halo,
/// [split, cells) after it (the atomic scatter: the cells in their order); the colour scatter
/// colours the two groups apart (colours_before_split).
template <typename V>
struct BlockSlots {
    const LmaOperator<V>* op = nullptr;
    index_type split = 0;
    index_type cells = 0;
};

/// Adds the cells of b before the halo or after it: the atomic scatter's slot range in one
/// launch, or that group's colours.
template <typename V>
void apply_block_cells(const BlockSlots<V>& b, bool before_halo, V alpha, const V* x, V* y)
{
    const Executor& e = *b.op->executor();
    if (b.op->cells_in_own_order()) {
        GPUFEM_DISPATCH(e, lma_apply_cells(e, b.op->stored(), before_halo ? 0 : b.split, before_halo ? b.split : b.cells,
                                           alpha, x, y, true, b.op->kernel()));
        return;
    }
    const int split = b.op->colours_before_split();
    b.op->apply_colours(before_halo ? 0 : split, before_halo ? split : b.op->num_colours(), alpha, x, y);
}

/// Bytes an apply of `cells` slots of op moves at least: their matrices and connectivity,
/// and x gathered per cell node.
template <typename V>
std::size_t slot_bytes(const LmaOperator<V>& op, index_type cells)
{
    const LmaArgs<V> a = op.stored();
    const auto n = static_cast<std::size_t>(cells);
    return n * (lma_entries_per_cell(a.npe, a.symmetric) * sizeof(V) + a.npe * (sizeof(index_type) + sizeof(V)));
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

/// Each type's cells split where its interior cells end (the atomic scatter: rounded down to
/// an aligned slot); after: the owned nodes of the cells past the split, ascending.
template <typename V>
std::vector<BlockSlots<V>> split_slots(const Mesh& ordered, index_type interior, index_type owned,
                                       const LinearOperator<V>& op, bool aligned, std::vector<index_type>& after)
{
    std::vector<index_type> split_of(element_type_count, 0), count_of(element_type_count, 0);
    for (index_type c = 0; c < ordered.num_cells(); ++c) {
        const auto t = static_cast<std::size_t>(ordered.type_of_cell(c));
        split_of[t] += c < interior;
        ++count_of[t];
    }
    if (aligned)
        for (index_type& split : split_of) split = split / lma_position_alignment * lma_position_alignment;
    std::vector<BlockSlots<V>> blocks;
    const std::vector<const LmaOperator<V>*> ops = type_operators(op);
    for (int t = 0; t < element_type_count; ++t)
        if (count_of[t] > 0) blocks.push_back({ops.at(blocks.size()), split_of[t], count_of[t]});
    std::vector<index_type> seen(element_type_count, 0);
    after = owned_nodes_of_cells(ordered, owned, [&](index_type c) {  // called for c = 0, 1, ... in order
        const auto t = static_cast<std::size_t>(ordered.type_of_cell(c));
        return seen[t]++ >= split_of[t];
    });
    return blocks;
}

}  // namespace

template <typename V>
PartMatrixFreeSystem<V> assemble_part_lma_system(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                                 const ProblemSpec& problem, const LmaOptions& options,
                                                 const DirichletAdjustment<V>& owners_dirichlet)
{
    StepLaps laps(*exec);
    index_type interior = 0;
    const Mesh ordered = interior_cells_first(mesh, owned, interior);
    laps("cells ordered");
    std::vector<std::uint8_t> mask;
    const DirichletAdjustment<V> adjust = recorded_adjustment(owners_dirichlet, mask);
    const bool atomic = options.scatter == LmaScatter::atomic;
    LmaSystem<V> system = assemble_lma_system<V>(exec, ordered, problem, options, adjust, atomic ? -1 : interior);
    laps("assembly");
    const std::shared_ptr<const LinearOperator<V>> whole(std::move(system.format.op));

    PartMatrixFreeSystem<V> out;
    std::vector<index_type> after;
    std::vector<BlockSlots<V>> blocks = split_slots(ordered, interior, owned, *whole, atomic, after);
    laps("rows after the halo");
    PartCellBytes bytes;
    for (const BlockSlots<V>& b : blocks) {
        out.interior_cells += b.split;
        out.boundary_cells += b.cells - b.split;
        bytes.before_halo += slot_bytes(*b.op, b.split);
        bytes.after_halo += slot_bytes(*b.op, b.cells - b.split);
    }
    const PartCellsApply<V> apply = [blocks](bool before_halo, V alpha, const V* x, V* y) {
        for (const BlockSlots<V>& b : blocks) apply_block_cells(b, before_halo, alpha, x, y);
    };
    split_part_operator<V>(out, whole, apply, bytes, owned, mesh.num_nodes() - owned, owned_masked_rows(mask, owned),
                           after);
    laps("split");
    keep_owned_rows(out, system.rhs, system.initial_guess, system.times, owned);
    laps("owned rows kept");
    spdlog::debug("the part's lma operator: {}", laps.text());
    return out;
}

template PartMatrixFreeSystem<float> assemble_part_lma_system(const ExecPtr&, const Mesh&, index_type, const ProblemSpec&,
                                                              const LmaOptions&, const DirichletAdjustment<float>&);
template PartMatrixFreeSystem<double> assemble_part_lma_system(const ExecPtr&, const Mesh&, index_type, const ProblemSpec&,
                                                               const LmaOptions&, const DirichletAdjustment<double>&);

}  // namespace gpufem
