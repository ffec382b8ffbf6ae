#include "assembly/flux_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpufem {

double FluxReport::boundary_total() const
{
    double sum = 0;
    for (const GroupFlux& g : groups) sum += g.flux;
    return sum;
}

double FluxReport::total(double RegionIntegrals::*field) const
{
    double sum = 0;
    for (const RegionIntegrals& r : regions) sum += r.*field;
    return sum;
}

double FluxReport::imbalance() const
{
    return boundary_total() -
           (total(&RegionIntegrals::source) - total(&RegionIntegrals::reaction) - total(&RegionIntegrals::convection));
}

double FluxReport::relative_imbalance() const
{
    double scale = std::max({std::abs(total(&RegionIntegrals::source)), std::abs(total(&RegionIntegrals::reaction)),
                             std::abs(total(&RegionIntegrals::convection))});
    for (const GroupFlux& g : groups) scale = std::max(scale, std::abs(g.flux));
    return scale > 0 ? std::abs(imbalance()) / scale : 0.0;
}

nlohmann::json FluxReport::to_json() const
{
    nlohmann::json boundary = nlohmann::json::array(), region_list = nlohmann::json::array();
    for (const GroupFlux& g : groups)
        boundary.push_back({{"group", g.group}, {"condition", g.condition}, {"flux", g.flux}});
    for (const RegionIntegrals& r : regions)
        region_list.push_back({{"region", r.region},
                               {"volume", r.volume},
                               {"integral_u", r.u},
                               {"integral_f", r.source},
                               {"integral_cu", r.reaction},
                               {"integral_b_grad_u", r.convection}});
    return {{"method", method},
            {"boundary", boundary},
            {"regions", region_list},
            {"total_boundary_flux", boundary_total()},
            {"total_source", total(&RegionIntegrals::source)},
            {"total_reaction", total(&RegionIntegrals::reaction)},
            {"total_convection", total(&RegionIntegrals::convection)},
            {"imbalance", imbalance()},
            {"relative_imbalance", relative_imbalance()}};
}

std::vector<std::pair<std::string, std::string>> FluxReport::summary() const
{
    std::string fluxes, integrals;
    for (const GroupFlux& g : groups)
        fluxes += fmt::format("{}{} ({}) {:.7g}", fluxes.empty() ? "" : ", ", g.group, g.condition, g.flux);
    for (const RegionIntegrals& r : regions)
        integrals += fmt::format("{}{}: int u {:.7g}, int f {:.7g}", integrals.empty() ? "" : "; ",
                                 r.region.empty() ? "(no region)" : r.region, r.u, r.source);
    std::vector<std::pair<std::string, std::string>> lines;
    if (!fluxes.empty()) lines.emplace_back("boundary fluxes (out)", fluxes);
    lines.emplace_back("regions", integrals);
    lines.emplace_back("conservation",
                       fmt::format("boundary {:.7g} = source {:.7g} - reaction {:.7g} - convection {:.7g}, "
                                   "imbalance {:.3e} (relative {:.3e})",
                                   boundary_total(), total(&RegionIntegrals::source), total(&RegionIntegrals::reaction),
                                   total(&RegionIntegrals::convection), imbalance(), relative_imbalance()));
    return lines;
}

}  // namespace gpufem
