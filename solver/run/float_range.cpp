#include "solver/run/float_range.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace gpufem {
namespace {

/// The first number literal of text that float cannot hold, as
/// written; empty when none.
std::string literal_outside_float(const std::string& text)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool starts = std::isdigit(static_cast<unsigned char>(text[i])) ||
                            (text[i] == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])));
        // A digit inside a name (x2) or inside a number already read is not a literal's start.
        if (!starts || (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' ||
                                  text[i - 1] == '.')))
            continue;
        char* end = nullptr;
        const double value = std::strtod(text.c_str() + i, &end);
        const std::size_t length = static_cast<std::size_t>(end - (text.c_str() + i));
        const double size = std::abs(value);
        if (size > std::numeric_limits<float>::max() || (size > 0 && size < std::numeric_limits<float>::min()))
            return text.substr(i, length);
        i += length > 0 ? length - 1 : 0;
    }
    return {};
}

}  // namespace

std::vector<std::string> float_range_warnings(const ProblemSpec& problem)
{
    std::vector<std::pair<std::string, std::string>> expressions = {
        {"problem.kappa", problem.kappa}, {"problem.f", problem.f}, {"problem.exact", problem.exact}};
    for (const BoundaryCondition& c : problem.dirichlet) expressions.push_back({"problem.dirichlet." + c.group, c.expression});
    for (const BoundaryCondition& c : problem.neumann) expressions.push_back({"problem.neumann." + c.group, c.expression});
    const auto add_regions = [&](const std::string& key, const std::vector<RegionValue>& regions) {
        for (const RegionValue& r : regions)
            for (const std::string& text : r.components) expressions.push_back({key + "." + r.region, text});
    };
    add_regions("problem.kappa", problem.kappa_regions);
    add_regions("problem.f", problem.f_regions);
    add_regions("problem.c", problem.reaction_regions);
    add_regions("problem.convection", problem.convection_regions);
    for (const std::string& text : problem.kappa_tensor) expressions.push_back({"problem.kappa", text});
    for (const std::string& text : problem.convection_field) expressions.push_back({"problem.convection", text});
    expressions.push_back({"problem.c", problem.reaction});
    for (const RobinCondition& c : problem.robin) {
        expressions.push_back({"problem.robin." + c.group + ".h", c.h});
        expressions.push_back({"problem.robin." + c.group + ".u_inf", c.u_inf});
    }
    std::vector<std::string> warnings;
    for (const auto& [key, text] : expressions)
        if (const std::string literal = literal_outside_float(text); !literal.empty())
            warnings.push_back(fmt::format(
                "precision float: {} holds {}, outside float's range ({:.1e} .. {:.1e}): it becomes zero or "
                "infinite in float (the solution with it); use precision: double",
                key, literal, static_cast<double>(std::numeric_limits<float>::min()),
                static_cast<double>(std::numeric_limits<float>::max())));
    return warnings;
}

}  // namespace gpufem
