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
    if (find(entry.name)) throw std::logic_error("preconditioner registry: '" + entry.name + "' registered twice");
    if (!entry.identity && (!entry.build_float || !entry.build_double || !entry.memory))
        throw std::logic_error("preconditioner registry: '" + entry.name + "' lacks a builder or its memory");
    entries_.push_back(std::move(entry));
}

const PreconditionerEntry* PreconditionerRegistry::find(std::string_view name) const
{
    for (const PreconditionerEntry& entry : entries_)
        if (entry.name == name) return &entry;
    return nullptr;
}

const PreconditionerEntry& PreconditionerRegistry::at(std::string_view name) const
{
    if (const PreconditionerEntry* entry = find(name)) return *entry;
    throw std::invalid_argument("unknown preconditioner '" + std::string(name) + "' (expected one of " +
                                joined_names(", ") + ")");
}

std::vector<std::string> PreconditionerRegistry::names() const
{
    std::vector<std::string> out;
    for (const PreconditionerEntry& entry : entries_) out.push_back(entry.name);
    return out;
}

std::string PreconditionerRegistry::joined_names(std::string_view separator) const
{
    std::string out;
    for (const PreconditionerEntry& entry : entries_) out += (out.empty() ? "" : std::string(separator)) + entry.name;
    return out;
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
