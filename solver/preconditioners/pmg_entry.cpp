// p-multigrid in the registry: the discretisation's lower-degree (and coarser-mesh) spaces as
// the first coarse levels of an AMG hierarchy, their operators R A P of the assembled matrix
// or, where the operator keeps none, the element matrices' Galerkin products (a matrix with
// 64-bit row offsets: its first R A P by the windows of a generated grid's lattice); AMG below.
#include <chrono>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "assembly/pa_coarse_level.hpp"
#include "linalg/float_copy.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/distributed_amg.hpp"
#include "solver/multigrid/lattice_product.hpp"
#include "solver/preconditioners/multigrid_setup.hpp"

namespace gpufem {
namespace {

/// Runs step on the operator's executor and records its synchronised wall time under name.
template <typename V, typename Step>
auto timed_step(const PreconditionerSetup<V>& setup, SetUpPreconditioner<V>& out, const char* name, Step&& step)
{
    const auto start = std::chrono::steady_clock::now();
    auto result = step();
    setup.op.executor()->synchronize();
    out.steps.emplace_back(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return result;
}

/// The coarse grids of the discretisation's transfers as lattices on exec (empty entries for
/// the other levels): their Galerkin products by windows.
std::vector<CoarseLattice> coarse_lattices(const std::vector<std::optional<StructuredGrid>>& grids, const ExecPtr& exec)
{
    std::vector<CoarseLattice> out;
    for (const std::optional<StructuredGrid>& grid : grids)
        out.push_back(grid ? coarse_lattice(*grid, exec) : CoarseLattice{});
    return out;
}

/// The first coarse operator R A P of a matrix with 64-bit row offsets (past 2^31 - 1 entries:
/// no sparse product takes it) when the first transfer goes to a generated grid's lattice
/// (lattice_galerkin); the levels below are 32-bit and the hierarchy makes them. Empty
/// otherwise (the element matrices make it then).
template <typename V>
std::vector<Csr<V>> first_grid_galerkin(const WideCsr<V>& a, const std::vector<Csr<V>>& transfers,
                                        const std::vector<CoarseLattice>& lattices)
{
    std::vector<Csr<V>> out;
    if (transfers.empty() || lattices.empty() || lattices.front().empty()) return out;
    const Csr<V>& p = transfers.front();
    try {
        out.push_back(lattice_galerkin(sparse_transpose(p), a, p, lattices.front()));
    } catch (const std::invalid_argument&) {  // a row of A P left its window: not the grid's pattern
    }
    return out;
}

/// pmg whose first transfer is applied without a stored matrix (transfers), its coarse
/// operators the element matrices' Galerkin products; on pa, the first coarse level by sum
/// factorisation from the operator's own factors where pa_coarse_level applies (in float:
/// made from the operator's and the transfer's float copies).
template <typename V>
SetUpPreconditioner<V> pmg_with_matrix_free_transfer(const PreconditionerSetup<V>& setup,
                                                     PmgMatrixFreeTransfers<V> transfers, SetUpPreconditioner<V> out,
                                                     bool in_float)
{
    const ExecPtr& exec = setup.op.executor();
    const bool first_level =
        setup.solver.amg.pa_coarse == AmgPaCoarse::factors && pa_coarse_level_applies(setup.op, transfers.first);
    std::unique_ptr<LinearOperator<V>> first_operator;
    if (first_level && !in_float)
        first_operator = timed_step(setup, out, "first_level", [&] { return pa_coarse_level(setup.op, transfers.first); });
    std::vector<Csr<V>> coarse_operators = timed_step(setup, out, "element_galerkin", [&] {
        return setup.disc->pmg_coarse_operators(exec, &setup.op, first_level);
    });
    std::vector<CoarseLattice> lattices = coarse_lattices(setup.disc->pmg_coarse_grids(), exec);
    if constexpr (std::is_same_v<V, double>)
        if (in_float) {
            SetUpPreconditioner<double> made = float_hierarchy("pmg", setup, &transfers.below,
                                                                std::move(coarse_operators), std::move(lattices),
                                                                &transfers.first);
            made.steps = std::move(out.steps);
            return made;
        }
    return set_up_multigrid<V>("pmg", setup.op, nullptr, [&] {
        const char* origin = first_operator ? pa_coarse_level_origin : "element galerkin";
        out.preconditioner = std::make_unique<AmgPreconditioner<V>>(
            setup.op, setup.solver.amg, transfers.below, std::move(coarse_operators), std::move(lattices), origin,
            std::move(transfers.first), std::move(first_operator));
        return std::move(out);
    });
}

template <typename V>
SetUpPreconditioner<V> build_pmg(const PreconditionerSetup<V>& setup)
{
    const ExecPtr& exec = setup.op.executor();
    SetUpPreconditioner<V> out;
    if constexpr (std::is_same_v<V, double>)
        if (setup.distributed && setup.solver.amg.precision == AmgPrecision::single)
            return distributed_float_hierarchy("pmg", setup);
    if (setup.distributed)  // the part's coarser spaces (DistributedRows::spaces), aggregation below
        return set_up_multigrid<V>("pmg", setup.op, nullptr, [&] {
            out.preconditioner = std::make_unique<DistributedAmg<V>>(setup.op, *setup.distributed, setup.solver.amg);
            return std::move(out);
        });
    // A float hierarchy (solver.amg.precision: float) rounds the assembled matrix or, without
    // one, the operator's float copy and these coarse operators (made in double).
    const bool in_float = std::is_same_v<V, double> && setup.solver.amg.precision == AmgPrecision::single;
    // With coarse operators from the elements, the first transfer by sum factorisation where
    // the discretisation offers it (in float: from the operator's float copy).
    std::optional<PmgMatrixFreeTransfers<V>> matrix_free;
    if (setup.disc && setup.coarse_from_elements && setup.permutation.empty() &&
        (!in_float || makes_float_copy(setup.op)))
        matrix_free = timed_step(setup, out, "interpolation", [&] { return setup.disc->pmg_matrix_free_transfers(exec); });
    if (matrix_free)
        return pmg_with_matrix_free_transfer(setup, std::move(*matrix_free), std::move(out), in_float);
    const double declined = out.steps.empty() ? 0.0 : out.steps.back().second;  // not offered: in the stored ones' step
    out.steps.clear();
    std::vector<Csr<V>> transfers;
    if (setup.disc)
        transfers = timed_step(setup, out, "interpolation", [&] {
            return pmg_interpolations_in_order(*setup.disc, setup.permutation, exec);
        });
    if (!out.steps.empty()) out.steps.back().second += declined;
    std::vector<CoarseLattice> lattices;
    if (setup.disc) lattices = coarse_lattices(setup.disc->pmg_coarse_grids(), exec);
    std::vector<Csr<V>> coarse_operators;
    if (setup.coarse_from_elements && !in_float)
        if (const WideCsr<V>* wide = setup.op.stored_wide_csr())
            coarse_operators = timed_step(setup, out, "grid_galerkin",
                                          [&] { return first_grid_galerkin(*wide, transfers, lattices); });
    const bool from_grid = !coarse_operators.empty();
    if (!from_grid && setup.coarse_from_elements && setup.disc && (!in_float || makes_float_copy(setup.op)))
        coarse_operators = timed_step(setup, out, "element_galerkin",
                                      [&] { return setup.disc->pmg_coarse_operators(exec, &setup.op); });
    if constexpr (std::is_same_v<V, double>)
        if (in_float) {
            SetUpPreconditioner<double> made = float_hierarchy("pmg", setup, &transfers, std::move(coarse_operators),
                                                                    std::move(lattices));
            made.steps = std::move(out.steps);
            return made;
        }
    if (!coarse_operators.empty())
        return set_up_multigrid<V>("pmg", setup.op, nullptr, [&] {
            out.preconditioner = std::make_unique<AmgPreconditioner<V>>(
                setup.op, setup.solver.amg, transfers, std::move(coarse_operators), std::move(lattices),
                from_grid ? "galerkin (R A P)" : "element galerkin");
            return std::move(out);
        });
    if (!setup.matrix)
        throw std::invalid_argument("preconditioner pmg: needs the assembled matrix and the "
                                    "lower-degree interpolations, which this system does not keep");
    return set_up_multigrid<V>("pmg", setup.op, setup.matrix, [&] {
        out.preconditioner = std::make_unique<AmgPreconditioner<V>>(setup.op, *setup.matrix, setup.solver.amg,
                                                                    &transfers, std::move(lattices));
        return std::move(out);
    });
}

}  // namespace

PreconditionerEntry pmg_preconditioner_entry()
{
    PreconditionerEntry entry = multigrid_entry(
        "pmg",
        "p-multigrid: degree k smoothed with the system's operator, then degree k/2 (even k >= 4) and 1 of "
        "the same mesh; then on a mesh refined by gpufem (straight cells) its parent mesh, that one's "
        "parent, ... down every refinement, and on a generated grid with an even number of boxes per unit "
        "length (at least 4) the grids of half, a quarter, ... of the boxes while the count stays even; amg "
        "below (at degree 1 on other meshes pmg is amg; a mesh of several cell types goes down its degrees, each "
        "cell by its type's basis); the coarser operators are R A P of the matrix, or "
        "with lma or pa the first from the element matrices (pa: from its factors, and at degrees 4, 6, 7 and 8 the "
        "first lower degree applied from them by sum factorisation, not stored), so no matrix is assembled "
        "(a mesh of several cell types: R A P of its assembled matrix). Under mpirun the same "
        "levels split among the ranks (each numbered across them, coarse operators R A P), the last gathered "
        "onto every rank when small; below degree 1 on other meshes amg across ranks");
    entry.needs.space_hierarchy = true;
    entry.across_ranks = true;
    entry.needs.element_operators = true;
    entry.build_float = build_pmg<float>;
    entry.build_double = build_pmg<double>;
    // The lower degrees' operators and transfers keep about 25% of the fine matrix; the
    // setup's products 20% (host) or 50% (device), measured on the 4M Q4 square (H100: 48%).
    entry.memory = [](const MatrixShape& m, bool) { return multigrid_memory(m, 0.25, 8, 0.2, 0.5); };
    return entry;
}

}  // namespace gpufem
