// The case file's `format_options`: one map per format (format_options: {sellp: {slice: 64}}),
// each parsed and validated by its format through the registry; the flat keys of earlier
// versions (format_options: {slice: 64}) are still read, with a deprecation warning, and go to
// every format that has the key.
#include "solver/case/case_format_options.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/operator_levels.hpp"

namespace gpufem {
namespace {

constexpr std::string_view booleans[] = {"true", "false"};

/// OptionReader over the YAML values of one format's options; errors name file, line and key.
class CaseOptionReader final : public OptionReader {
public:
    CaseOptionReader(const CaseReader& reader, const CaseValue& map, std::vector<CaseValue> values)
        : reader_(reader), map_(map), values_(std::move(values))
    {
    }

    bool has(std::string_view key) const override { return find_entry(values_, key) != nullptr; }

    long long get_int(std::string_view key, long long min, long long max) const override
    {
        const CaseValue& v = value(key);
        const long long i = reader_.to_int(v, static_cast<int>(std::clamp<long long>(min, INT_MIN, INT_MAX)));
        if (i > max)
            reader_.fail(v, "expected an integer from " + std::to_string(min) + " to " +
                                std::to_string(max) + ", got " + std::to_string(i));
        return i;
    }

    double get_double(std::string_view key, double min, double max, bool max_open) const override
    {
        const CaseValue& v = value(key);
        const std::string range = fmt::format("[{}, {}{}", min, max, max_open ? ")" : "]");
        const double d = reader_.to_double(v, "a number in " + range);
        if (d < min || d > max || (max_open && d == max))
            reader_.fail(v, "expected a number in " + range + ", got " + v.node.Scalar());
        return d;
    }

    bool get_bool(std::string_view key) const override
    {
        return reader_.to_choice(value(key), booleans) == "true";
    }

    std::string get_choice(std::string_view key, std::span<const std::string_view> choices) const override
    {
        return reader_.to_choice(value(key), choices);
    }

    [[noreturn]] void fail(std::string_view key, const std::string& problem) const override
    {
        const CaseValue* v = find_entry(values_, key);
        reader_.fail(v ? *v : map_, problem);
    }

private:
    const CaseValue& value(std::string_view key) const
    {
        const CaseValue* v = find_entry(values_, key);
        if (!v) reader_.fail(map_, "missing key '" + std::string(key) + "'");
        return *v;
    }

    const CaseReader& reader_;
    const CaseValue& map_;
    std::vector<CaseValue> values_;
};

std::vector<std::string_view> option_keys(const OperatorEntryBase& format)
{
    std::vector<std::string_view> keys;
    for (const FormatOptionInfo& info : format.options.keys) keys.push_back(info.key);
    return keys;
}

}  // namespace

FormatOptions read_format_options(const CaseReader& reader, const CaseValue& value,
                                  nlohmann::json& resolved)
{
    const auto registry = operator_entries();
    // Allowed: each format's name (its own map) and, deprecated, any format's option key.
    std::vector<std::string> allowed_text;
    for (const OperatorEntryBase& format : registry) {
        if (format.options.keys.empty()) continue;
        allowed_text.push_back(format.name);
        for (const FormatOptionInfo& info : format.options.keys)
            if (std::find(allowed_text.begin(), allowed_text.end(), info.key) == allowed_text.end())
                allowed_text.push_back(info.key);
    }
    const std::vector<std::string_view> allowed(allowed_text.begin(), allowed_text.end());

    std::map<std::string, std::vector<CaseValue>> flat;  // format -> its flat keys
    std::map<std::string, const CaseValue*> nested;      // format -> its map
    const std::vector<CaseValue> entries = reader.entries(value, allowed);
    for (const CaseValue& entry : entries) {
        if (const OperatorChoice named = lookup_operator(entry.key); named.format || named.level) {
            nested[named.name()] = &entry;
            continue;
        }
        std::vector<std::string> owners;
        for (const OperatorEntryBase& format : registry) {
            const auto keys = option_keys(format);
            if (std::find(keys.begin(), keys.end(), entry.key) == keys.end()) continue;
            flat[format.name].push_back(entry);
            owners.push_back(format.name);
        }
        spdlog::warn("{}: format_options.{} is deprecated: write it under its format, "
                     "format_options: {{{}: {{{}: ...}}}}",
                     reader.where(entry.path, entry.mark), entry.key, owners.front(), entry.key);
    }

    FormatOptions options;
    resolved = nlohmann::json::object();
    for (const OperatorEntryBase& format : registry) {
        if (format.options.keys.empty()) continue;
        const auto n = nested.find(format.name);
        const auto f = flat.find(format.name);
        if (n != nested.end() && f != flat.end())
            reader.fail(f->second.front(), "format_options." + format.name +
                                               " is given too: write every option of '" +
                                               format.name + "' there");
        std::optional<CaseOptionReader> option_reader;
        if (n != nested.end()) {
            option_reader.emplace(reader, *n->second, reader.entries(*n->second, option_keys(format)));
        } else {
            option_reader.emplace(reader, value, f != flat.end() ? f->second : std::vector<CaseValue>{});
        }
        std::any parsed = format.options.parse(*option_reader);
        resolved[format.name] = format.options.to_json(parsed);
        options.set_any(format.name, std::move(parsed));
    }
    return options;
}

}  // namespace gpufem
