#pragma once
// Enums with names: one table per enum gives its spelling in case files, reports and messages,
// and the parse back. Typed values travel through the code; only the case reader and the
// writers of reports see the names.
#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace gpufem {

/// A value of enum E and its name.
template <typename E>
struct EnumName {
    E value;
    std::string_view name;
};

/// The name of value in table (every value of E must be listed).
template <typename E, std::size_t N>
constexpr std::string_view enum_name(const std::array<EnumName<E>, N>& table, E value)
{
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return "unknown";
}

/// The value named name, if table lists it.
template <typename E, std::size_t N>
constexpr std::optional<E> enum_from_name(const std::array<EnumName<E>, N>& table,
                                          std::string_view name)
{
    for (const auto& entry : table)
        if (entry.name == name) return entry.value;
    return std::nullopt;
}

/// "a, b, c": the names of table, for messages and help texts.
template <typename E, std::size_t N>
std::string enum_names(const std::array<EnumName<E>, N>& table, std::string_view separator = ", ")
{
    std::string list;
    for (std::size_t i = 0; i < N; ++i) {
        if (i) list += separator;
        list += table[i].name;
    }
    return list;
}

/// The value named name; throws std::invalid_argument "unknown <what> '<name>' (known: ...)".
template <typename E, std::size_t N>
E parse_enum(const std::array<EnumName<E>, N>& table, std::string_view name, std::string_view what)
{
    if (const auto value = enum_from_name(table, name)) return *value;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) +
                                "' (known: " + enum_names(table) + ")");
}

}  // namespace gpufem
