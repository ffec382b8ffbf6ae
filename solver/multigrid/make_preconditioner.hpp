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
/// empty for degree 1, where pmg is amg); coarse_operators, when not empty, are the operators
/// of the interpolations' coarse spaces (assembly/pmg_coarse_operators.hpp), taken over by
/// the hierarchy: pmg then uses them instead of R A P and needs no matrix. The pointers are
/// only read during the setup and may be null where not needed. Throws
/// std::invalid_argument as the constructors do, and when a needed matrix is missing.
template <typename V>
std::unique_ptr<Preconditioner<V>> make_preconditioner(const PreconditionerSpec& spec,
                                                       const LinearOperator<V>& a,
                                                       const Csr<V>* matrix,
                                                       const std::vector<Csr<V>>* interpolations = nullptr,
                                                       std::vector<Csr<V>> coarse_operators = {});

/// True when the preconditioner is built from the assembled matrix (amg, pmg), which the
/// system must then keep beside its operator.
inline bool needs_assembled_matrix(PreconditionerKind kind)
{
    return kind == PreconditionerKind::amg || kind == PreconditionerKind::pmg;
}

/// True when pmg takes its coarse operators from the element matrices
/// (Discretisation::pmg_coarse_operators) instead of R A P of the assembled matrix: where the
/// discretisation offers them and the format is matrix-free (lma), so that no finest matrix is
/// assembled and kept for the setup. Assembled formats without CSR arrays (ell, sellp, ...)
/// keep a copy of the CSR instead: R A P from it sets up faster on the GPU than the element
/// matrices are recomputed (H100, Q4 square of 4M unknowns: 0.071 s against 0.111 s with ell).
inline bool pmg_from_element_matrices(PreconditionerKind kind, bool format_is_matrix_free, bool offered)
{
    return kind == PreconditionerKind::pmg && offered && format_is_matrix_free;
}

}  // namespace gpufem
