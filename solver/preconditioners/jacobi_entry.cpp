// Jacobi (diagonal scaling) in the registry: the inverse of the diagonal every operator
// carries; the merged solvers fold it into their fused updates.
#include "solver/preconditioners/preconditioner_registry.hpp"

namespace gpufem {
namespace {

template <typename V>
SetUpPreconditioner<V> build_jacobi(const PreconditionerSetup<V>& setup)
{
    SetUpPreconditioner<V> out;
    out.preconditioner = std::make_unique<JacobiPreconditioner<V>>(setup.op);
    return out;
}

}  // namespace

PreconditionerEntry jacobi_preconditioner_entry()
{
    PreconditionerEntry entry;
    entry.name = "jacobi";
    entry.summary = "diagonal scaling, taken from the format, lma included";
    entry.diagonal = true;
    entry.across_ranks = true;
    entry.build_float = build_jacobi<float>;
    entry.build_double = build_jacobi<double>;
    // The inverse diagonal, and the diagonal it is taken from.
    entry.memory = [](const MatrixShape& m, bool) {
        const double vector = m.rows * m.value_bytes;
        return PreconditionerMemory{vector, vector};
    };
    return entry;
}

}  // namespace gpufem
