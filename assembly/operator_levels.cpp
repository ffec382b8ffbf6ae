#include "assembly/operator_levels.hpp"

#include <stdexcept>

namespace gpufem {

// Each level's entry, defined in its own file.
OperatorLevelEntry lma_level_entry();
OperatorLevelEntry pa_level_entry();

const OperatorLevelRegistry& operator_levels()
{
    static const OperatorLevelRegistry registry = [] {
        OperatorLevelRegistry r("operator level");
        r.add(lma_level_entry());
        r.add(pa_level_entry());
        return r;
    }();
    return registry;
}

OperatorChoice lookup_operator(std::string_view name)
{
    OperatorChoice choice;
    choice.format = assembled_formats().find(name);
    if (!choice.format) choice.level = operator_levels().find(name);
    return choice;
}

OperatorChoice find_operator(std::string_view name)
{
    const OperatorChoice choice = lookup_operator(name);
    if (!choice.format && !choice.level)
        throw std::invalid_argument("unknown format '" + std::string(name) + "' (known: " + joined_operator_names() + ")");
    return choice;
}

std::vector<std::reference_wrapper<const OperatorEntryBase>> operator_entries()
{
    std::vector<std::reference_wrapper<const OperatorEntryBase>> out;
    for (const FormatEntry& entry : assembled_formats().entries()) out.emplace_back(entry);
    for (const OperatorLevelEntry& entry : operator_levels().entries()) out.emplace_back(entry);
    return out;
}

std::vector<std::string> operator_names()
{
    std::vector<std::string> out;
    for (const OperatorEntryBase& entry : operator_entries()) out.push_back(entry.name);
    return out;
}

std::string joined_operator_names()
{
    std::string out;
    for (const std::string& name : operator_names()) out += (out.empty() ? "" : ", ") + name;
    return out;
}

}  // namespace gpufem
