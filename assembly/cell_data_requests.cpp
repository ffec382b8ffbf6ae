#include "assembly/cell_data_requests.hpp"

#include <algorithm>
#include <string>

namespace gpufem {
namespace {

/// Appends the requests of one coefficient: its global data, then its regions'.
void add_requests(std::vector<CellFieldRequest>& out, const std::string& key, const CellDataRef& global,
                  const std::vector<RegionValue>& regions, CellFieldCheck check)
{
    if (global.given()) out.push_back({global.field, global.file, "problem." + key, check});
    for (const RegionValue& r : regions)
        if (r.data.given()) out.push_back({r.data.field, r.data.file, "problem." + key + "." + r.region, check});
}

}  // namespace

std::vector<CellFieldRequest> cell_data_requests(const ProblemSpec& problem)
{
    std::vector<CellFieldRequest> out;
    add_requests(out, "kappa", problem.kappa_data, problem.kappa_regions, CellFieldCheck::positive);
    add_requests(out, "f", problem.f_data, problem.f_regions, CellFieldCheck::finite);
    add_requests(out, "c", problem.reaction_data, problem.reaction_regions, CellFieldCheck::nonnegative);
    return out;
}

bool kappa_has_cell_data(const ProblemSpec& problem)
{
    return problem.kappa_data.given() || std::any_of(problem.kappa_regions.begin(), problem.kappa_regions.end(),
                                                     [](const RegionValue& r) { return r.data.given(); });
}

}  // namespace gpufem
