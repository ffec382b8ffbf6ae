#pragma once
// The one place that turns a case's preconditioner choice into a Preconditioner.
#include <memory>
#include <vector>

#include "linalg/csr.hpp"
#include "solver/krylov/preconditioner.hpp"
#include "solver/multigrid/amg_options.hpp"

namespace gpufem {

/// A preconditioner choice with its options.
struct PreconditionerSpec {
    PreconditionerKind kind = PreconditionerKind::none;
    AmgOptions amg;  ///< for kind amg
};

/// The preconditioner of spec for a (nullptr for none). matrix is a's assembled matrix in a's
/// numbering, which amg and pmg need; interpolations are pmg's transfers to lower degrees,
/// finest first (the first's rows in a's numbering; see assembly/lagrange_interpolation.hpp;
/// empty for degree 1, where pmg is amg). Both are only read during the setup and may be null
/// where not needed. Throws std::invalid_argument as the constructors do, and when a needed
/// matrix is missing.
template <typename V>
std::unique_ptr<Preconditioner<V>> make_preconditioner(const PreconditionerSpec& spec,
                                                       const LinearOperator<V>& a,
                                                       const Csr<V>* matrix,
                                                       const std::vector<Csr<V>>* interpolations = nullptr);

/// True when the preconditioner is built from the assembled matrix (amg, pmg), which the
/// system must then keep beside its operator.
inline bool needs_assembled_matrix(PreconditionerKind kind)
{
    return kind == PreconditionerKind::amg || kind == PreconditionerKind::pmg;
}

}  // namespace gpufem
