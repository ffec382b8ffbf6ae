// CaseReader: where a value came from, and checked conversions of YAML scalars.
#include "solver/case/case_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "assembly/expression.hpp"
#include "solver/case/case_file.hpp"

namespace gpufem {

namespace {

/// "'text'", "a list", "a map" or "nothing", for "expected ..., got ..." messages.
std::string describe(const YAML::Node& node)
{
    if (!node.IsDefined() || node.IsNull()) {
        return "nothing";
    }
    if (node.IsSequence()) {
        return "a list";
    }
    if (node.IsMap()) {
        return "a map";
    }
    return "'" + node.Scalar() + "'";
}

/// Levenshtein distance between a and b.
std::size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

/// "; did you mean 'size'?" when a valid key is within two edits of key, else "".
std::string suggestion(std::string_view key, std::span<const std::string_view> allowed)
{
    std::string_view best;
    std::size_t best_distance = 3;
    for (std::string_view name : allowed) {
        const std::size_t distance = edit_distance(key, name);
        if (distance < best_distance && distance < name.size()) {
            best = name;
            best_distance = distance;
        }
    }
    return best.empty() ? "" : "; did you mean '" + std::string(best) + "'?";
}

/// "parent.key" ("key" at the top level).
std::string child_path(const std::string& parent, const std::string& key)
{
    return parent.empty() ? key : parent + "." + key;
}

/// The text without one leading '+', which std::from_chars does not accept.
std::string_view unsigned_text(const std::string& text)
{
    std::string_view view(text);
    if (view.size() > 1 && view.front() == '+') {
        view.remove_prefix(1);
    }
    return view;
}

}  // namespace

CaseReader::CaseReader(std::string file, std::vector<CaseOverride> overrides)
    : file_(std::move(file)), overrides_(std::move(overrides))
{
}

std::string CaseReader::where(const std::string& path, const YAML::Mark& mark) const
{
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
        const std::string& key = it->key;
        if (path == key || (path.size() > key.size() && path.compare(0, key.size(), key) == 0 &&
                            path[key.size()] == '.')) {
            return "--set " + it->text;
        }
    }
    if (mark.is_null()) {
        return file_;
    }
    return file_ + ":" + std::to_string(mark.line + 1);
}

const CaseOverride* CaseReader::override_within(const std::string& path) const
{
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
        const std::string& key = it->key;
        if (key == path || (key.size() > path.size() && key.compare(0, path.size(), path) == 0 &&
                            key[path.size()] == '.'))
            return &*it;
    }
    return nullptr;
}

void CaseReader::fail(const CaseValue& value, const std::string& problem) const
{
    const std::string location = where(value.path, value.mark);
    throw CaseError(value.path.empty() ? location + ": " + problem
                                       : location + ": " + value.path + ": " + problem);
}

std::vector<CaseValue> CaseReader::entries(const CaseValue& map,
                                           std::span<const std::string_view> allowed) const
{
    std::vector<CaseValue> result;
    if (!map.node.IsDefined() || map.node.IsNull()) {
        return result;
    }
    if (!map.node.IsMap()) {
        const std::string keys = allowed.empty() ? "" : " with keys " + join_names(allowed);
        fail(map, "expected a map" + keys + ", got " + describe(map.node));
    }
    std::map<std::string, int> first_line;
    for (auto it = map.node.begin(); it != map.node.end(); ++it) {
        const YAML::Node key = it->first;  // a copy: it-> returns a temporary proxy
        const YAML::Node value = it->second;
        if (!key.IsScalar()) {
            fail(CaseValue{map.path, map.key, map.node, key.Mark()},
                 "expected a key name, got " + describe(key));
        }
        CaseValue entry{child_path(map.path, key.Scalar()), key.Scalar(), value, key.Mark()};
        if (entry.mark.is_null()) {
            entry.mark = value.Mark();
        }
        if (!allowed.empty() &&
            std::find(allowed.begin(), allowed.end(), key.Scalar()) == allowed.end()) {
            fail(entry, "unknown key '" + key.Scalar() + "' (valid keys: " + join_names(allowed) +
                            ")" + suggestion(key.Scalar(), allowed));
        }
        const auto [previous, inserted] = first_line.emplace(key.Scalar(), entry.mark.line + 1);
        if (!inserted) {
            fail(entry, "duplicate key (first given at line " + std::to_string(previous->second) + ")");
        }
        locations_[entry.path] = where(entry.path, entry.mark);
        result.push_back(std::move(entry));
    }
    return result;
}

std::string CaseReader::to_scalar(const CaseValue& value, const std::string& expected) const
{
    if (!value.node.IsScalar()) {
        fail(value, "expected " + expected + ", got " + describe(value.node));
    }
    return value.node.Scalar();
}

int CaseReader::to_int(const CaseValue& value, int min) const
{
    const std::string expected = min == 1 ? "an integer > 0" : "an integer >= " + std::to_string(min);
    const std::string text = to_scalar(value, expected);
    const std::string_view digits = unsigned_text(text);
    int result = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), result);
    if (error != std::errc() || end != digits.data() + digits.size() || result < min) {
        fail(value, "expected " + expected + ", got " + describe(value.node));
    }
    return result;
}

std::vector<int> CaseReader::to_int_list(const CaseValue& value, int min, int max) const
{
    const auto check = [&](const CaseValue& item) {
        const int v = to_int(item, min);
        if (v > max)
            fail(item, "expected an integer from " + std::to_string(min) + " to " +
                           std::to_string(max) + ", got " + std::to_string(v));
        return v;
    };
    if (!value.node.IsSequence()) return {check(value)};
    if (value.node.size() == 0) fail(value, "expected an integer or a non-empty list of integers");
    // A list of distinct values from [min, max] is never longer than the range (a huge list
    // is refused before it is read, and a sweep never runs a point twice).
    const std::size_t distinct = static_cast<std::size_t>(max) - static_cast<std::size_t>(min) + 1;
    if (value.node.size() > distinct)
        fail(value, "a list of " + std::to_string(value.node.size()) + " entries; at most " +
                        std::to_string(distinct) + " distinct integers from " +
                        std::to_string(min) + " to " + std::to_string(max) + " are allowed");
    std::vector<int> result;
    std::size_t i = 0;
    for (const YAML::Node& item : value.node) {
        const CaseValue entry{value.path + "[" + std::to_string(i) + "]", value.key, item,
                              item.Mark().is_null() ? value.mark : item.Mark()};
        const int v = check(entry);
        if (std::find(result.begin(), result.end(), v) != result.end())
            fail(entry, std::to_string(v) + " is listed twice");
        result.push_back(v);
        ++i;
    }
    return result;
}

double CaseReader::to_double(const CaseValue& value, const std::string& expected) const
{
    const std::string text = to_scalar(value, expected);
    const std::string_view digits = unsigned_text(text);
    double result = 0.0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), result);
    if (error != std::errc() || end != digits.data() + digits.size() || !std::isfinite(result)) {
        fail(value, "expected " + expected + ", got " + describe(value.node));
    }
    return result;
}

std::string CaseReader::to_choice(const CaseValue& value, std::span<const std::string_view> choices,
                                  std::span<const std::pair<std::string_view, std::string_view>> aliases) const
{
    const std::string expected = "one of " + join_names(choices);
    const std::string text = to_scalar(value, expected);
    if (std::find(choices.begin(), choices.end(), text) != choices.end()) {
        return text;
    }
    for (const auto& [alias, name] : aliases) {
        if (alias == text) {
            return std::string(name);
        }
    }
    fail(value, "expected " + expected + ", got " + describe(value.node));
}

std::string CaseReader::to_expression(const CaseValue& value) const
{
    std::string text = to_scalar(value, "a number or an expression of x, y, z");
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    text = first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
    try {
        Expression expression(text);
    } catch (const std::invalid_argument& error) {
        fail(value, error.what());
    }
    return text;
}

std::vector<std::string> CaseReader::to_expression_list(const CaseValue& value, std::size_t max_entries) const
{
    if (!value.node.IsSequence()) return {to_expression(value)};
    if (value.node.size() == 0) fail(value, "expected an expression or a non-empty list of expressions");
    if (value.node.size() > max_entries)
        fail(value, "a list of " + std::to_string(value.node.size()) + " entries; at most " +
                        std::to_string(max_entries) + " are allowed");
    std::vector<std::string> result;
    std::size_t i = 0;
    for (const YAML::Node& item : value.node) {
        const CaseValue entry{value.path + "[" + std::to_string(i) + "]", value.key, item,
                              item.Mark().is_null() ? value.mark : item.Mark()};
        std::string text = to_expression(entry);
        if (std::find(result.begin(), result.end(), text) != result.end())
            fail(entry, "'" + text + "' is listed twice");
        result.push_back(std::move(text));
        ++i;
    }
    return result;
}

const CaseValue* find_entry(const std::vector<CaseValue>& entries, std::string_view key)
{
    for (const CaseValue& entry : entries) {
        if (entry.key == key) {
            return &entry;
        }
    }
    return nullptr;
}

std::string join_names(std::span<const std::string_view> names)
{
    std::string result;
    for (std::string_view name : names) {
        result += (result.empty() ? "" : ", ") + std::string(name);
    }
    return result;
}

}  // namespace gpufem
