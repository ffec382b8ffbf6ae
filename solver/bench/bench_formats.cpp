#include "solver/bench/bench_formats.hpp"

#include <stdexcept>


namespace gpufem {
namespace {

/// The entries of choice for the variant suffix ("" = the plain format).
std::vector<BenchFormat> expand(const OperatorChoice& choice, std::string_view suffix, const FormatOptions& base)
{
    const OperatorEntryBase& entry = choice.entry();
    if (!entry.variants) return {{choice, entry.name, base}};
    std::vector<BenchFormat> out;
    for (FormatVariant& v : entry.variants(suffix, base)) out.push_back({choice, std::move(v.label), std::move(v.options)});
    return out;
}

/// The format or level name stands for and the variant suffix after its name.
std::pair<OperatorChoice, std::string_view> resolve(std::string_view name)
{
    if (const OperatorChoice exact = lookup_operator(name); exact.format || exact.level) return {exact, ""};
    std::string_view best;
    for (const OperatorEntryBase& entry : operator_entries()) {
        const std::size_t n = entry.name.size();
        if (!entry.variants || name.size() <= n || name.substr(0, n) != entry.name) continue;
        if (name[n] != '-' && name[n] != ':') continue;
        if (n > best.size()) best = entry.name;
    }
    if (best.empty())
        throw std::invalid_argument("unknown format '" + std::string(name) + "' (known: " +
                                    joined_operator_names() + ", and variants such as lma-all)");
    return {lookup_operator(best), name.substr(best.size())};
}

}  // namespace

std::vector<BenchFormat> bench_formats(const std::vector<std::string>& names,
                                       const FormatOptions& base, Backend backend)
{
    std::vector<BenchFormat> out;
    if (names.empty()) {
        for (const OperatorEntryBase& entry : operator_entries()) {
            if (!entry.available_on(backend)) continue;
            for (BenchFormat& f : expand(lookup_operator(entry.name), entry.bench_default_suffix, base))
                out.push_back(std::move(f));
        }
        return out;
    }
    for (const std::string& name : names) {
        const auto [choice, suffix] = resolve(name);
        for (BenchFormat& f : expand(choice, suffix, base)) out.push_back(std::move(f));
    }
    return out;
}

}  // namespace gpufem
