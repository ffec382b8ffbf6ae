#include "solver/preconditioners/multigrid_setup.hpp"

#include <optional>
#include <stdexcept>

#include "assembly/pa_coarse_level.hpp"
#include "linalg/float_copy.hpp"
#include "linalg/precision.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/distributed_amg.hpp"
#include "solver/multigrid/distributed_float_cycle.hpp"
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

namespace {

/// The float copies of a first transfer's operators; nullopt without one, or when they make
/// none.
std::optional<TransferOperators<float>> float_transfer(const TransferOperators<double>* first)
{
    if (!first) return std::nullopt;
    TransferOperators<float> out{float_copy_of(*first->prolongation), float_copy_of(*first->restriction)};
    if (!out.prolongation || !out.restriction) return std::nullopt;
    return out;
}

/// The bytes a product of matrix rounded to float in CSR would move (csr_spmv_min_bytes),
/// without making the copy.
std::size_t rounded_csr_spmv_min_bytes(const Csr<double>& matrix)
{
    const auto rows = static_cast<std::size_t>(matrix.rows), cols = static_cast<std::size_t>(matrix.cols);
    const auto nnz = static_cast<std::size_t>(matrix.nnz());
    return (rows + 1) * sizeof(index_type) + nnz * (sizeof(index_type) + sizeof(float)) + (cols + rows) * sizeof(float);
}

/// The float hierarchy of a system without an assembled matrix: the operator's float copy
/// smoothed on, the given transfers and coarse operators rounded (a first transfer given as
/// operators: their float copies; an empty first coarse operator: pa_coarse_level of those
/// copies); null when the operator or the first transfer makes no float copy or there are no
/// coarse operators.
std::unique_ptr<FloatCycle> matrix_free_float_cycle(const PreconditionerSetup<double>& setup,
                                                    const std::vector<Csr<double>>& transfers,
                                                    const std::vector<Csr<double>>& coarse_operators,
                                                    std::vector<CoarseLattice> lattices,
                                                    const TransferOperators<double>* first)
{
    if (coarse_operators.empty()) return nullptr;
    std::unique_ptr<LinearOperator<float>> fine = float_copy_of(setup.op);
    if (!fine) return nullptr;
    std::optional<TransferOperators<float>> first_in_float = float_transfer(first);
    if (first && !first_in_float) return nullptr;
    std::unique_ptr<LinearOperator<float>> first_operator;
    if (coarse_operators.front().rows == 0) {  // left to the pa level of the float copies
        if (first_in_float) first_operator = pa_coarse_level(*fine, *first_in_float);
        if (!first_operator)
            throw std::logic_error("pmg in float: the first coarse level was left to the operator's float copy, "
                                   "which does not make it");
    }
    std::vector<Csr<float>> rounded_transfers, rounded_operators;
    for (const Csr<double>& p : transfers) rounded_transfers.push_back(rounded_to_float(p));
    for (const Csr<double>& a : coarse_operators)
        rounded_operators.push_back(a.rows == 0 ? Csr<float>{} : rounded_to_float(a));
    auto inner = std::make_unique<AmgPreconditioner<float>>(*fine, setup.solver.amg, rounded_transfers,
                                                            std::move(rounded_operators), std::move(lattices),
                                                            first_operator ? pa_coarse_level_origin : "element galerkin",
                                                            std::move(first_in_float), std::move(first_operator));
    return std::make_unique<FloatCycle>(std::move(fine), std::move(inner));
}

}  // namespace

SetUpPreconditioner<double> distributed_float_hierarchy(const char* name, const PreconditionerSetup<double>& setup)
{
    return set_up_multigrid<double>(name, setup.op, nullptr, [&] {
        SetUpPreconditioner<double> out;
        out.preconditioner = std::make_unique<DistributedFloatCycle>(name, *setup.distributed, setup.solver.amg);
        return out;
    });
}

SetUpPreconditioner<double> float_hierarchy(const char* name, const PreconditionerSetup<double>& setup,
                                            const std::vector<Csr<double>>* transfers,
                                            std::vector<Csr<double>> coarse_operators, std::vector<CoarseLattice> lattices,
                                            const TransferOperators<double>* first)
{
    if (setup.distributed) return distributed_float_hierarchy(name, setup);
    const std::string key = fmt::format("solver.amg.precision: float (preconditioner {})", name);
    if (!setup.matrix) {
        return set_up_multigrid<double>(name, setup.op, nullptr, [&] {
            SetUpPreconditioner<double> out;
            if (transfers)
                out.preconditioner =
                    matrix_free_float_cycle(setup, *transfers, coarse_operators, std::move(lattices), first);
            coarse_operators.clear();
            if (!out.preconditioner)
                throw std::invalid_argument(key + ": the float hierarchy is made from the assembled matrix or from "
                                                  "the operator's own copy in float (pmg with pa or lma), which this "
                                                  "system does not have; name an assembled format (csr, ell, ...), "
                                                  "pa or lma");
            return out;
        });
    }
    if (first)  // the transfers are then the chain below it, which R A P of the matrix cannot start from
        throw std::logic_error("float_hierarchy: a first transfer given as operators needs the coarse operators "
                               "from the elements, not the assembled matrix");
    return set_up_multigrid<double>(name, setup.op, setup.matrix, [&] {
        // The fine level smooths with the system operator's own float copy where that moves
        // fewer bytes a product than the matrix rounded to float in CSR (bdia's bands: no column
        // indices); the coarse levels come from the matrix's entries rounded to float: read
        // from the double matrix by pmg's first Galerkin product, else from a rounded copy that
        // goes after the setup.
        std::unique_ptr<LinearOperator<float>> own = float_copy_of(setup.op);
        const bool smooth_with_own = own && own->spmv_min_bytes() < rounded_csr_spmv_min_bytes(*setup.matrix);
        std::vector<Csr<float>> rounded_transfers;
        if (transfers)
            for (const Csr<double>& p : *transfers) rounded_transfers.push_back(rounded_to_float(p));
        SetUpPreconditioner<double> out;
        if (smooth_with_own && !rounded_transfers.empty()) {
            auto inner = std::make_unique<AmgPreconditioner<float>>(*own, *setup.matrix, setup.solver.amg,
                                                                    rounded_transfers, std::move(lattices));
            out.preconditioner = std::make_unique<FloatCycle>(std::move(own), std::move(inner));
            return out;
        }
        std::unique_ptr<LinearOperator<float>> rounded = float_fine_operator(*setup.matrix);
        const LinearOperator<float>& fine = smooth_with_own ? *own : *rounded;
        auto inner = std::make_unique<AmgPreconditioner<float>>(fine, *rounded->stored_csr(), setup.solver.amg,
                                                                transfers ? &rounded_transfers : nullptr,
                                                                std::move(lattices));
        out.preconditioner =
            std::make_unique<FloatCycle>(smooth_with_own ? std::move(own) : std::move(rounded), std::move(inner));
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
