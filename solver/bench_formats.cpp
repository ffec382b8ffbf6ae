#include "solver/bench_formats.hpp"

#include <stdexcept>

#include "assembly/format_registry.hpp"

namespace gpufem {
namespace {

/// The entries of format for the variant suffix ("" = the plain format).
std::vector<BenchFormat> expand(const FormatEntry& format, std::string_view suffix,
                                const FormatOptions& base)
{
    if (!format.variants) return {{&format, format.name, base}};
    std::vector<BenchFormat> out;
    for (FormatVariant& v : format.variants(suffix, base))
        out.push_back({&format, std::move(v.label), std::move(v.options)});
    return out;
}

/// The registry entry name stands for and the variant suffix after its name.
std::pair<const FormatEntry*, std::string_view> resolve(const FormatRegistry& registry,
                                                        std::string_view name)
{
    if (const FormatEntry* exact = registry.find(name)) return {exact, ""};
    const FormatEntry* best = nullptr;
    for (const FormatEntry& format : registry.entries()) {
        const std::size_t n = format.name.size();
        if (!format.variants || name.size() <= n || name.substr(0, n) != format.name) continue;
        if (name[n] != '-' && name[n] != ':') continue;
        if (!best || n > best->name.size()) best = &format;
    }
    if (!best)
        throw std::invalid_argument("unknown format '" + std::string(name) + "' (known: " +
                                    registry.joined_names() + ", and variants such as lma-all)");
    return {best, name.substr(best->name.size())};
}

}  // namespace

std::vector<BenchFormat> bench_formats(const std::vector<std::string>& names,
                                       const FormatOptions& base, Backend backend)
{
    const FormatRegistry& registry = format_registry();
    std::vector<BenchFormat> out;
    if (names.empty()) {
        for (const FormatEntry& format : registry.entries()) {
            if (!format.available_on(backend)) continue;
            for (BenchFormat& f : expand(format, format.bench_default_suffix, base))
                out.push_back(std::move(f));
        }
        return out;
    }
    for (const std::string& name : names) {
        const auto [format, suffix] = resolve(registry, name);
        for (BenchFormat& f : expand(*format, suffix, base)) out.push_back(std::move(f));
    }
    return out;
}

}  // namespace gpufem
