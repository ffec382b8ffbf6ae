#include "solver/preconditioners/multigrid_setup.hpp"

#include "linalg/precision.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/float_cycle.hpp"

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

SetUpPreconditioner<double> float_hierarchy(const char* name, const PreconditionerSetup<double>& setup,
                                            const std::vector<Csr<double>>* transfers)
{
    const std::string key = fmt::format("solver.amg.precision: float (preconditioner {})", name);
    if (setup.distributed) throw std::invalid_argument(key + " runs on one process so far");
    if (!setup.matrix)
        throw std::invalid_argument(key + ": the float hierarchy is made from the assembled matrix, which this system "
                                          "does not keep; name an assembled format (csr, ell, ...)");
    return set_up_multigrid<double>(name, setup.op, setup.matrix, [&] {
        std::unique_ptr<LinearOperator<float>> fine = float_fine_operator(*setup.matrix);
        std::vector<Csr<float>> rounded;
        if (transfers)
            for (const Csr<double>& p : *transfers) rounded.push_back(rounded_to_float(p));
        auto inner = std::make_unique<AmgPreconditioner<float>>(*fine, *fine->stored_csr(), setup.solver.amg,
                                                                transfers ? &rounded : nullptr);
        SetUpPreconditioner<double> out;
        out.preconditioner = std::make_unique<FloatCycle>(std::move(fine), std::move(inner));
        return out;
    });
}

PreconditionerMemory multigrid_memory(const MatrixShape& m, double kept_share, double vectors,
                                      double host_share, double device_share)
{
    const double csr = csr_bytes(m);
    return {kept_share * csr + vectors * m.rows * m.value_bytes, (m.on_device ? device_share : host_share) * csr};
}

}  // namespace gpufem
