// --set overrides: parsing "dotted.key=value" and setting the value in the YAML tree.
#include "solver/case/case_overrides.hpp"

#include <cstddef>
#include <vector>

#include "solver/case/case_file.hpp"

namespace gpufem {

namespace {

/// text without leading and trailing blanks.
std::string trim(const std::string& text)
{
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return "";
    }
    const std::size_t last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

/// "a.b.c" -> {"a", "b", "c"} (empty segments kept, to be reported).
std::vector<std::string> split_key(const std::string& key)
{
    std::vector<std::string> segments;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = key.find('.', start);
        segments.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) {
            return segments;
        }
        start = dot + 1;
    }
}

/// Throws the CaseError "--set <text>: <problem>".
[[noreturn]] void fail(const std::string& text, const std::string& problem)
{
    throw CaseError("--set " + text + ": " + problem);
}

/// "a list" or "a scalar", for a node that is not a map.
const char* kind_of(const YAML::Node& node)
{
    return node.IsSequence() ? "a list" : "a scalar";
}

}  // namespace

CaseOverride parse_override(const std::string& text)
{
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos) {
        fail(text, "malformed override: expected key=value (e.g. --set mesh.refine=2)");
    }
    CaseOverride result;
    result.text = text;
    result.key = trim(text.substr(0, equals));
    if (result.key.empty()) {
        fail(text, "malformed override: the key before '=' is empty");
    }
    for (const std::string& segment : split_key(result.key)) {
        if (segment.empty()) {
            fail(text, "malformed override: empty segment in the key '" + result.key + "'");
        }
    }
    const std::string value = trim(text.substr(equals + 1));
    try {
        result.value = YAML::Load(value);
    } catch (const YAML::Exception& error) {
        fail(text, "the value is not valid YAML: " + error.msg);
    }
    // A map or list only when written as one ({...} or [...]): an expression such as
    // "x < 0.5 ? 1 : 2" reads as a YAML map (the '? ' key marker) but is meant as text.
    if ((result.value.IsMap() || result.value.IsSequence()) && !value.empty() &&
        value.front() != '{' && value.front() != '[')
        result.value = YAML::Node(value);
    return result;
}

void apply_override(YAML::Node& root, const CaseOverride& override)
{
    const std::vector<std::string> segments = split_key(override.key);
    YAML::Node node = root;  // a handle: node.reset() moves it, assignment would write through
    std::string path;
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
        path += (i == 0 ? "" : ".") + segments[i];
        YAML::Node child = node[segments[i]];
        if (!child.IsDefined() || child.IsNull()) {
            child = YAML::Node(YAML::NodeType::Map);
        } else if (!child.IsMap()) {
            fail(override.text, "'" + path + "' holds " + kind_of(child) +
                                    ", not a map, so it has no key '" + segments[i + 1] + "'");
        }
        node.reset(child);
    }
    node[segments.back()] = override.value;
}

}  // namespace gpufem
