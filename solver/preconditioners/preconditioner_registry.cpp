#include "solver/preconditioners/preconditioner_registry.hpp"

#include <stdexcept>

namespace gpufem {

// Each preconditioner's entry, defined in its own file.
PreconditionerEntry identity_preconditioner_entry();
PreconditionerEntry jacobi_preconditioner_entry();
PreconditionerEntry amg_preconditioner_entry();
PreconditionerEntry pmg_preconditioner_entry();

void PreconditionerRegistry::add(PreconditionerEntry entry)
{
    if (!entry.identity && (!entry.build_float || !entry.build_double || !entry.memory))
        throw std::logic_error("preconditioner registry: '" + entry.name + "' lacks a builder or its memory");
    NamedRegistry<PreconditionerEntry>::add(std::move(entry));
}

const PreconditionerRegistry& preconditioner_registry()
{
    static const PreconditionerRegistry registry = [] {
        PreconditionerRegistry r;
        r.add(identity_preconditioner_entry());
        r.add(jacobi_preconditioner_entry());
        r.add(amg_preconditioner_entry());
        r.add(pmg_preconditioner_entry());
        return r;
    }();
    return registry;
}

const PreconditionerEntry& default_preconditioner() { return preconditioner_registry().entries().front(); }

}  // namespace gpufem
