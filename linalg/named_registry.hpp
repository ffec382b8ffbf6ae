#pragma once
// NamedRegistry: a list of entries looked up by name — the storage formats, the operator levels,
// the preconditioners. Each registers once; everything a user can choose is found here by
// name, so nothing past the case reader compares names.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpufem {

/// Entries with a `name` member, in registration order.
template <typename Entry>
class NamedRegistry {
public:
    /// kind: what an entry is, for messages ("format", "preconditioner").
    explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}

    /// Adds an entry; throws std::logic_error when its name is taken.
    void add(Entry entry)
    {
        if (find(entry.name)) throw std::logic_error(kind_ + " '" + entry.name + "' registered twice");
        entries_.push_back(std::move(entry));
    }
    /// The entry named name, or nullptr.
    const Entry* find(std::string_view name) const
    {
        for (const Entry& entry : entries_)
            if (entry.name == name) return &entry;
        return nullptr;
    }
    /// The entry named name; throws std::invalid_argument listing the known names.
    const Entry& at(std::string_view name) const
    {
        if (const Entry* entry = find(name)) return *entry;
        throw std::invalid_argument("unknown " + kind_ + " '" + std::string(name) + "' (known: " + joined_names() + ")");
    }
    /// Every entry, in registration order.
    const std::vector<Entry>& entries() const { return entries_; }
    /// Their names, in the same order.
    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const Entry& entry : entries_) out.push_back(entry.name);
        return out;
    }
    /// "a, b, c" (or joined by separator) for messages.
    std::string joined_names(std::string_view separator = ", ") const
    {
        std::string out;
        for (const Entry& entry : entries_) out += (out.empty() ? "" : std::string(separator)) + entry.name;
        return out;
    }

private:
    std::string kind_;
    std::vector<Entry> entries_;
};

}  // namespace gpufem
