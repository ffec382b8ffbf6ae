#pragma once
// What the multigrid preconditioners' entries share: their setup with an allocation failure
// reported as the hierarchy's, their cost per apply, and their memory model.
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/transfer_operators.hpp"
#include "solver/multigrid/lattice_product.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"

namespace gpufem {

/// build() with an allocation failure reported as the hierarchy of name's: the rows (and
/// non-zeros) it was built for and what to change; other errors pass through.
template <typename V, typename Build>
SetUpPreconditioner<V> set_up_multigrid(const char* name, const LinearOperator<V>& op, const Csr<V>* matrix,
                                        Build&& build)
{
    try {
        return build();
    } catch (const std::runtime_error& e) {
        if (!std::strstr(e.what(), "out of memory") && !std::strstr(e.what(), "insufficient resources"))
            throw;
        throw std::runtime_error(fmt::format(
            "preconditioner {}: the hierarchy of the {} rows{} does not fit beside the system "
            "({}); use solver.preconditioner: jacobi, a smaller mesh, or a larger device",
            name, op.rows(), matrix ? fmt::format(" and {} non-zeros", matrix->nnz()) : std::string(), e.what()));
    }
}

/// An entry of a multigrid preconditioner: the multigrid flag, the iterations format: auto
/// assumes for it, one cycle's applications on the finest level, and the assembled matrix
/// its setup reads; the caller adds its builders, memory and further needs.
PreconditionerEntry multigrid_entry(std::string name, std::string summary);

/// The hierarchy of a double system set up and cycled in float (solver.amg.precision:
/// float): a float copy of setup.matrix as its fine level, transfers (pmg's interpolations in
/// the operator's numbering; null for amg) rounded to float. Without the matrix, the
/// operator's own float copy (the matrix-free formats make one: pa, lma) as the fine level and
/// coarse_operators (pmg's, from the element matrices, in double) rounded as the first coarse
/// levels. lattices: the transfers' coarse grids (AmgPreconditioner's, for the products by
/// windows). first: pmg's first transfer as operators (their float copies are the cycle's; the
/// transfers then the chain below it). Throws std::invalid_argument naming the key across ranks
/// where neither is there; across ranks, distributed_float_hierarchy.
SetUpPreconditioner<double> float_hierarchy(const char* name, const PreconditionerSetup<double>& setup,
                                            const std::vector<Csr<double>>* transfers,
                                            std::vector<Csr<double>> coarse_operators = {},
                                            std::vector<CoarseLattice> lattices = {},
                                            const TransferOperators<double>* first = nullptr);

/// float_hierarchy under mpirun: the distributed hierarchy (DistributedAmg, with pmg's coarser
/// spaces) set up and cycled in float on a float copy of the rank's rows (owned block and
/// ghost columns), applied to the double system. Collective; throws std::invalid_argument on
/// every rank when a rank's rows have 64-bit offsets.
SetUpPreconditioner<double> distributed_float_hierarchy(const char* name, const PreconditionerSetup<double>& setup);

/// A multigrid hierarchy's memory: kept_share of the fine matrix's CSR plus vectors of the
/// cycle, and the setup's sparse products (host_share / device_share of the fine CSR on the
/// CPU / a device), measured on the shipped cases.
PreconditionerMemory multigrid_memory(const MatrixShape& m, double kept_share, double vectors,
                                      double host_share, double device_share);

}  // namespace gpufem
