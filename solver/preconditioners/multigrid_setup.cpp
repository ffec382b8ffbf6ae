#include "solver/preconditioners/multigrid_setup.hpp"

#include "solver/case/case_file.hpp"

namespace gpufem {

PreconditionerEntry multigrid_entry(std::string name, std::string summary)
{
    PreconditionerEntry entry;
    entry.name = std::move(name);
    entry.summary = std::move(summary);
    entry.needs.assembled_matrix = true;
    entry.multigrid = true;
    // Measured: 12-17 iterations on the shipped cases at 1e-8 to 1e-10; a setup is too
    // expensive to run for format: auto's estimate.
    entry.assumed_iterations = 15;
    // The smoother's steps before and after the coarse correction (solver.amg.degree each)
    // and the residual.
    entry.fine_applies = [](const SolverSpec& solver) { return 2 * solver.amg.degree + 1; };
    return entry;
}

PreconditionerMemory multigrid_memory(const MatrixShape& m, double kept_share, double vectors,
                                      double host_share, double device_share)
{
    const double csr = csr_bytes(m);
    return {kept_share * csr + vectors * m.rows * m.value_bytes, (m.on_device ? device_share : host_share) * csr};
}

}  // namespace gpufem
