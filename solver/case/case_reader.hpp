#pragma once
// Checked reads of a case file's YAML values; every error names where, the key path and why.
#include <array>
#include <span>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "linalg/named_enum.hpp"
#include "solver/case/case_overrides.hpp"

namespace gpufem {

/// A value of the case with its dotted key path and the position of its key.
struct CaseValue {
    std::string path;  ///< "mesh.refine"; "" for the top level
    std::string key;   ///< the last segment of path: "refine"
    YAML::Node node;   ///< the value (may be null)
    YAML::Mark mark;   ///< where its key was written (the value's own mark for the top level)
};

/// Reads values of one case, throwing CaseError "<where>: <key.path>: <problem>" where <where>
/// is "<file>:<line>" (1-based) or "--set <override>" for values that an override set.
class CaseReader {
public:
    CaseReader(std::string file, std::vector<CaseOverride> overrides);

    /// "<file>:<line>", "<file>" when the position is unknown, or "--set key=value" when the
    /// key path is (inside) one that an override set.
    std::string where(const std::string& path, const YAML::Mark& mark) const;
    /// The last override that set path or a key inside it (--set matrix.file=... for
    /// "matrix"); null when none did.
    const CaseOverride* override_within(const std::string& path) const;
    /// Throws the CaseError for a problem with this value.
    [[noreturn]] void fail(const CaseValue& value, const std::string& problem) const;

    /// The entries of a map value in written order (none for a null value), after checking that
    /// it is a map, that its keys are unique scalars and, when allowed is not empty, that each
    /// key is one of allowed (the error lists them and suggests a close one).
    std::vector<CaseValue> entries(const CaseValue& map,
                                   std::span<const std::string_view> allowed) const;

    /// A scalar as text ("1e-3", "sin(x)").
    std::string to_scalar(const CaseValue& value, const std::string& expected) const;
    /// An integer >= min.
    int to_int(const CaseValue& value, int min) const;
    /// One integer or a non-empty list of them ([1, 2, 3]), each in [min, max] (a sweep axis).
    std::vector<int> to_int_list(const CaseValue& value, int min, int max) const;
    /// A finite number.
    double to_double(const CaseValue& value, const std::string& expected) const;
    /// One of choices; aliases map other spellings onto them ({"tri", "triangle"}).
    std::string to_choice(const CaseValue& value, std::span<const std::string_view> choices,
                          std::span<const std::pair<std::string_view, std::string_view>> aliases = {}) const;
    /// A value of an enum: one of the names of table.
    template <typename E, std::size_t N>
    E to_enum(const CaseValue& value, const std::array<EnumName<E>, N>& table) const
    {
        std::array<std::string_view, N> names;
        for (std::size_t i = 0; i < N; ++i) names[i] = table[i].name;
        return *enum_from_name(table, to_choice(value, names));
    }
    /// A number or an expression of x, y, z, compiled to check it; returned as its text
    /// without surrounding white space.
    std::string to_expression(const CaseValue& value) const;
    /// One expression or a non-empty list of distinct ones (a sweep axis), at most max_entries,
    /// each as to_expression gives it.
    std::vector<std::string> to_expression_list(const CaseValue& value, std::size_t max_entries) const;

    /// Where each entry that entries() returned was given (its path -> where()).
    const std::map<std::string, std::string>& locations() const { return locations_; }

private:
    std::string file_;
    std::vector<CaseOverride> overrides_;
    mutable std::map<std::string, std::string> locations_;
};

/// The entry with this key, or nullptr.
const CaseValue* find_entry(const std::vector<CaseValue>& entries, std::string_view key);

/// "a, b, c" (for messages).
std::string join_names(std::span<const std::string_view> names);

}  // namespace gpufem
