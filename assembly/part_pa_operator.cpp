#include "assembly/part_pa_operator.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include <spdlog/spdlog.h>

#include "assembly/boundary_conditions.hpp"
#include "assembly/pa_system.hpp"
#include "assembly/phase_clock.hpp"

namespace gpufem {
namespace {

/// rows (ascending) with the owned nodes of the Robin groups' facets added, ascending.
void add_robin_rows(const Mesh& mesh, const ProblemSpec& problem, index_type owned, std::vector<index_type>& rows)
{
    for (const RobinCondition& condition : problem.robin)
        for (const index_type node : condition_facets(mesh, condition.group, "robin").connectivity)
            if (node >= 0 && node < owned) rows.push_back(node);
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
}

}  // namespace

template <typename V>
PartMatrixFreeSystem<V> assemble_part_pa_system(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                                const ProblemSpec& problem,
                                                const DirichletAdjustment<V>& owners_dirichlet)
{
    StepLaps laps(*exec);
    index_type interior = 0;
    const Mesh ordered = interior_cells_first(mesh, owned, interior);
    laps("cells ordered");
    std::vector<std::uint8_t> mask;
    const DirichletAdjustment<V> adjust = recorded_adjustment(owners_dirichlet, mask);
    PaSystem<V> system = assemble_pa_system<V>(exec, ordered, problem, adjust);
    laps("assembly");
    const std::shared_ptr<const PaOperator<V>> whole(std::move(system.op));

    PartMatrixFreeSystem<V> out;
    const index_type cells = ordered.num_cells();
    out.interior_cells = interior;
    out.boundary_cells = cells - interior;
    // The Robin facets go after the halo with the cells that hold a ghost: their owned nodes
    // join those cells' rows.
    const PartCellsApply<V> apply = [whole, interior, cells](bool before_halo, V alpha, const V* x, V* y) {
        whole->add_cells(alpha, x, y, before_halo ? 0 : interior, before_halo ? interior : cells);
        if (!before_halo) whole->add_facets(alpha, x, y);
    };
    const PartCellBytes bytes{whole->cell_bytes(interior), whole->cell_bytes(cells - interior) + whole->facet_bytes()};
    std::vector<index_type> after =
        owned_nodes_of_cells(ordered, owned, [interior](index_type c) { return c >= interior; });
    add_robin_rows(ordered, problem, owned, after);
    laps("rows after the halo");
    split_part_operator<V>(out, whole, apply, bytes, owned, mesh.num_nodes() - owned, owned_masked_rows(mask, owned),
                           after);
    laps("split");
    keep_owned_rows(out, system.rhs, system.initial_guess, system.times, owned);
    laps("owned rows kept");
    spdlog::debug("the part's pa operator: {}", laps.text());
    return out;
}

template PartMatrixFreeSystem<float> assemble_part_pa_system(const ExecPtr&, const Mesh&, index_type,
                                                             const ProblemSpec&, const DirichletAdjustment<float>&);
template PartMatrixFreeSystem<double> assemble_part_pa_system(const ExecPtr&, const Mesh&, index_type,
                                                              const ProblemSpec&, const DirichletAdjustment<double>&);

}  // namespace gpufem
