#include "solver/multigrid/make_preconditioner.hpp"

#include <stdexcept>

#include "solver/multigrid/amg_preconditioner.hpp"

namespace gpufem {

template <typename V>
std::unique_ptr<Preconditioner<V>> make_preconditioner(const PreconditionerSpec& spec,
                                                       const LinearOperator<V>& a,
                                                       const Csr<V>* matrix,
                                                       const std::vector<Csr<V>>* interpolations)
{
    switch (spec.kind) {
    case PreconditionerKind::none: return nullptr;
    case PreconditionerKind::jacobi: return std::make_unique<JacobiPreconditioner<V>>(a);
    case PreconditionerKind::amg:
        if (!matrix)
            throw std::invalid_argument(
                "preconditioner amg: needs the assembled matrix, which this system does not keep");
        return std::make_unique<AmgPreconditioner<V>>(a, *matrix, spec.amg);
    case PreconditionerKind::pmg:
        if (!matrix || !interpolations)
            throw std::invalid_argument("preconditioner pmg: needs the assembled matrix and the "
                                        "lower-degree interpolations, which this system does not keep");
        return std::make_unique<AmgPreconditioner<V>>(a, *matrix, spec.amg, interpolations);
    }
    throw std::invalid_argument("make_preconditioner: unknown kind");
}

template std::unique_ptr<Preconditioner<float>> make_preconditioner(const PreconditionerSpec&,
                                                                    const LinearOperator<float>&,
                                                                    const Csr<float>*,
                                                                    const std::vector<Csr<float>>*);
template std::unique_ptr<Preconditioner<double>> make_preconditioner(const PreconditionerSpec&,
                                                                     const LinearOperator<double>&,
                                                                     const Csr<double>*,
                                                                     const std::vector<Csr<double>>*);

}  // namespace gpufem
