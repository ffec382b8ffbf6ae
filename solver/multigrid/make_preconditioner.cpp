#include "solver/multigrid/make_preconditioner.hpp"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "solver/multigrid/amg_preconditioner.hpp"

namespace gpufem {

namespace {

/// Builds a multigrid hierarchy; an allocation that fails is reported as the hierarchy's.
template <typename V, typename Build>
std::unique_ptr<Preconditioner<V>> multigrid(const char* name, const LinearOperator<V>& a,
                                             const Csr<V>* matrix, Build&& build)
{
    try {
        return build();
    } catch (const std::runtime_error& e) {
        if (!std::strstr(e.what(), "out of memory") && !std::strstr(e.what(), "insufficient resources"))
            throw;
        throw std::runtime_error(fmt::format(
            "preconditioner {}: the hierarchy of the {} rows{} does not fit beside the system "
            "({}); use solver.preconditioner: jacobi, a smaller mesh, or a larger device",
            name, a.rows(), matrix ? fmt::format(" and {} non-zeros", matrix->nnz()) : std::string(),
            e.what()));
    }
}

}  // namespace

template <typename V>
std::unique_ptr<Preconditioner<V>> make_preconditioner(const PreconditionerSpec& spec,
                                                       const LinearOperator<V>& a,
                                                       const Csr<V>* matrix,
                                                       const std::vector<Csr<V>>* interpolations,
                                                       std::vector<Csr<V>> coarse_operators)
{
    switch (spec.kind) {
    case PreconditionerKind::none: return nullptr;
    case PreconditionerKind::jacobi: return std::make_unique<JacobiPreconditioner<V>>(a);
    case PreconditionerKind::amg:
        if (!matrix)
            throw std::invalid_argument(
                "preconditioner amg: needs the assembled matrix, which this system does not keep");
        return multigrid<V>("amg", a, matrix, [&]() -> std::unique_ptr<Preconditioner<V>> {
            return std::make_unique<AmgPreconditioner<V>>(a, *matrix, spec.amg);
        });
    case PreconditionerKind::pmg:
        if (interpolations && !coarse_operators.empty())
            return multigrid<V>("pmg", a, nullptr, [&]() -> std::unique_ptr<Preconditioner<V>> {
                return std::make_unique<AmgPreconditioner<V>>(a, spec.amg, *interpolations,
                                                              std::move(coarse_operators));
            });
        if (!matrix || !interpolations)
            throw std::invalid_argument("preconditioner pmg: needs the assembled matrix and the "
                                        "lower-degree interpolations, which this system does not keep");
        return multigrid<V>("pmg", a, matrix, [&]() -> std::unique_ptr<Preconditioner<V>> {
            return std::make_unique<AmgPreconditioner<V>>(a, *matrix, spec.amg, interpolations);
        });
    }
    throw std::invalid_argument("make_preconditioner: unknown kind");
}

template std::unique_ptr<Preconditioner<float>> make_preconditioner(const PreconditionerSpec&,
                                                                    const LinearOperator<float>&,
                                                                    const Csr<float>*,
                                                                    const std::vector<Csr<float>>*,
                                                                    std::vector<Csr<float>>);
template std::unique_ptr<Preconditioner<double>> make_preconditioner(const PreconditionerSpec&,
                                                                     const LinearOperator<double>&,
                                                                     const Csr<double>*,
                                                                     const std::vector<Csr<double>>*,
                                                                     std::vector<Csr<double>>);

}  // namespace gpufem
