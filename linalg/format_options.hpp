#pragma once
// Format options: each format's own typed parameters (parsed and validated by the format from
// the case's `format_options.<format>` map through an OptionReader), kept together in one
// FormatOptions bag keyed by format name.
#include <any>
#include <array>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "linalg/named_enum.hpp"

namespace gpufem {

/// The values of one format's options map as a case gives them. The case reader implements
/// it; its errors name the file, the line and the key (format_options.<format>.<key>).
class OptionReader {
public:
    virtual ~OptionReader() = default;
    /// True when the key is given.
    virtual bool has(std::string_view key) const = 0;
    /// An integer in [min, max].
    virtual long long get_int(std::string_view key, long long min, long long max) const = 0;
    /// A finite number in [min, max] ([min, max) when max_open).
    virtual double get_double(std::string_view key, double min, double max,
                              bool max_open = false) const = 0;
    /// true or false.
    virtual bool get_bool(std::string_view key) const = 0;
    /// One of choices.
    virtual std::string get_choice(std::string_view key,
                                   std::span<const std::string_view> choices) const = 0;
    /// Throws the reader's error for this key with the problem.
    [[noreturn]] virtual void fail(std::string_view key, const std::string& problem) const = 0;
};

/// A symmetric reordering of the matrix applied before it is converted into any format
/// (the case's `reorder`): the operator then works in the new numbering, the solver permutes
/// the right-hand side in and the solution back.
enum class Reordering {
    none,  ///< the assembly's numbering
    rcm,   ///< reverse Cuthill-McKee (Boost.Graph, host)
    cm,    ///< Cuthill-McKee, not reversed
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<Reordering>, 3> reordering_names{
    {{Reordering::none, "none"}, {Reordering::rcm, "rcm"}, {Reordering::cm, "cm"}}};

/// The parsed options of the formats, each format's own struct, keyed by format name, and the
/// reordering every format is built after.
class FormatOptions {
public:
    /// The reordering applied before the conversion (none by default).
    Reordering reordering() const { return reordering_; }
    /// Sets it.
    void set_reordering(Reordering reordering) { reordering_ = reordering; }

    /// format's options (its struct T), or T's defaults when the case gave none.
    template <typename T>
    T get(std::string_view format) const
    {
        const auto it = values_.find(format);
        if (it == values_.end()) return T{};
        if (const T* value = std::any_cast<T>(&it->second)) return *value;
        throw std::logic_error("format_options." + std::string(format) +
                               ": stored options are not of the type the format reads");
    }
    /// Sets format's options (its struct, by value).
    template <typename T>
    void set(std::string format, T options)
    {
        values_[std::move(format)] = std::any(std::move(options));
    }
    /// Sets format's options from a type-erased value (the registry's parsers).
    void set_any(std::string format, std::any options) { values_[std::move(format)] = std::move(options); }
    /// True when options were set for format.
    bool has(std::string_view format) const { return values_.find(format) != values_.end(); }

private:
    std::map<std::string, std::any, std::less<>> values_;
    Reordering reordering_ = Reordering::none;
};

/// One option of a format: its key under format_options.<format>, default and meaning.
struct FormatOptionInfo {
    std::string key;           ///< the YAML key
    std::string default_text;  ///< as written in the reference ("32", "auto", "true")
    std::string help;          ///< what it sets, for the reference
};

/// How a format reads and reports its options (type-erased over the format's struct).
struct FormatOptionCodec {
    std::vector<FormatOptionInfo> keys;  ///< every key the format reads (empty: no options)
    /// Parses the format's struct from the reader (absent keys: defaults).
    std::function<std::any(const OptionReader&)> parse;
    /// The struct (or the defaults when the value is empty) as JSON, for report.json.
    std::function<nlohmann::json(const std::any&)> to_json;
};

/// A codec for the options struct T from its parse and to_json functions.
template <typename T>
FormatOptionCodec option_codec(std::vector<FormatOptionInfo> keys, T (*parse)(const OptionReader&),
                               nlohmann::json (*to_json)(const T&))
{
    FormatOptionCodec codec;
    codec.keys = std::move(keys);
    codec.parse = [parse](const OptionReader& reader) { return std::any(parse(reader)); };
    codec.to_json = [to_json](const std::any& value) {
        return to_json(value.has_value() ? std::any_cast<const T&>(value) : T{});
    };
    return codec;
}

/// Reads a power of two in [1, max] (threads per row and the like).
int read_power_of_two(const OptionReader& reader, std::string_view key, int max);

}  // namespace gpufem
