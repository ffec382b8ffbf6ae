#pragma once
// The one place that turns a case's preconditioner choice into a Preconditioner.
#include <memory>

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
/// numbering, which amg needs (only read during the setup; may be null for none and jacobi).
/// Throws std::invalid_argument as the constructors do, and for amg without a matrix.
template <typename V>
std::unique_ptr<Preconditioner<V>> make_preconditioner(const PreconditionerSpec& spec,
                                                       const LinearOperator<V>& a,
                                                       const Csr<V>* matrix);

/// True when the preconditioner is built from the assembled matrix (amg), which the system
/// must then keep beside its operator.
inline bool needs_assembled_matrix(PreconditionerKind kind) { return kind == PreconditionerKind::amg; }

}  // namespace gpufem
