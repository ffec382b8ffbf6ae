// Smoothed-aggregation AMG in the registry: set up from the assembled matrix in the
// operator's numbering (solver/multigrid/amg_preconditioner.hpp), options under solver.amg.
#include <type_traits>

#include "solver/case/case_file.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/distributed_amg.hpp"
#include "solver/preconditioners/multigrid_setup.hpp"

namespace gpufem {
namespace {

template <typename V>
SetUpPreconditioner<V> build_amg(const PreconditionerSetup<V>& setup)
{
    if constexpr (std::is_same_v<V, double>)
        if (setup.solver.amg.precision == AmgPrecision::single) return float_hierarchy("amg", setup, nullptr);
    if (setup.distributed)
        return set_up_multigrid<V>("amg", setup.op, nullptr, [&] {
            SetUpPreconditioner<V> out;
            out.preconditioner = std::make_unique<DistributedAmg<V>>(setup.op, *setup.distributed, setup.solver.amg);
            return out;
        });
    if (!setup.matrix)
        throw std::invalid_argument("preconditioner amg: needs the assembled matrix, which this system does not keep");
    return set_up_multigrid<V>("amg", setup.op, setup.matrix, [&] {
        SetUpPreconditioner<V> out;
        out.preconditioner = std::make_unique<AmgPreconditioner<V>>(setup.op, *setup.matrix, setup.solver.amg);
        return out;
    });
}

/// AMG's coarse levels and transfers keep about 30% of the fine matrix; its setup's sparse
/// products another 35% (host) or 45% (gpufem's hash product on a device: the product and its
/// row counts, no library buffers), measured on the 4M and 64M Q1 cubes on an H100. On a
/// finite-volume matrix (few entries a row) P and R weigh about 60 bytes per row and the
/// aggregation works on another 40 (fv_cube_tets_4m, H100).
PreconditionerMemory amg_memory(const MatrixShape& m, bool finite_volumes)
{
    PreconditionerMemory memory = multigrid_memory(m, 0.3, 6, 0.35, 0.45);
    if (finite_volumes) {
        memory.kept += 60 * m.rows;
        memory.setup += 40 * m.rows;
    }
    return memory;
}

}  // namespace

PreconditionerEntry amg_preconditioner_entry()
{
    PreconditionerEntry entry = multigrid_entry(
        "amg", "smoothed-aggregation algebraic multigrid (or classical coarsening: "
               "solver.amg.coarsening), one V-cycle per iteration, set up on the backend's device; "
               "with lma or pa the matrix is assembled as well for the setup. Under "
               "mpirun each rank aggregates its own rows and the small coarse levels are gathered "
               "onto every rank (solver.amg.gather_rows)");
    entry.across_ranks = true;
    entry.build_float = build_amg<float>;
    entry.build_double = build_amg<double>;
    entry.memory = amg_memory;
    return entry;
}

}  // namespace gpufem
