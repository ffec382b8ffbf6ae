#include "solver/preconditioners/multigrid_setup.hpp"

#include "solver/case/case_file.hpp"

namespace gpufem {

int multigrid_fine_applies(const SolverSpec& solver) { return 2 * solver.amg.degree + 1; }

PreconditionerMemory multigrid_memory(const MatrixShape& m, double kept_share, double vectors,
                                      double host_share, double device_share)
{
    const double csr = csr_bytes(m);
    return {kept_share * csr + vectors * m.rows * m.value_bytes, (m.on_device ? device_share : host_share) * csr};
}

}  // namespace gpufem
