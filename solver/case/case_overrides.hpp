#pragma once
// --set overrides of a case file: "dotted.key=value", applied to the YAML tree before validation.
#include <string>

#include <yaml-cpp/yaml.h>

namespace gpufem {

/// One --set override, parsed.
struct CaseOverride {
    std::string text;  ///< as given, e.g. "mesh.refine=3"
    std::string key;   ///< the dotted key, e.g. "mesh.refine"
    YAML::Node value;  ///< the value parsed as YAML ("3" is a number, "[1, 2]" a list)
};

/// Parses "dotted.key=value". Throws CaseError naming the override when there is no '=', a
/// key segment is empty, or the value is not valid YAML.
CaseOverride parse_override(const std::string& text);

/// Sets the value at the override's dotted key in root (a map), creating the maps on the way
/// that are absent or empty; throws CaseError naming the override when a parent on the way
/// holds a scalar or a list.
void apply_override(YAML::Node& root, const CaseOverride& override);

}  // namespace gpufem
