// No preconditioner: the Krylov method on the system as it is.
#include "solver/preconditioners/preconditioner_registry.hpp"

namespace gpufem {

PreconditionerEntry identity_preconditioner_entry()
{
    PreconditionerEntry entry;
    entry.name = "none";
    entry.summary = "";  // the reference lists it bare
    entry.identity = true;
    entry.across_ranks = true;
    entry.memory = [](const MatrixShape&, bool) { return PreconditionerMemory{}; };
    return entry;
}

}  // namespace gpufem
