#pragma once
// What a run reports about its solution's fluxes: the flux out of the domain through each
// boundary group with a condition, each region's integrals, and the balance of the boundary
// fluxes against the source (conservation). Filled by the discretisations
// (assembly/fe_fluxes.hpp, finite volumes' solution_output).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpufem {

/// The flux of -kappa grad u out of the domain through one boundary group.
struct GroupFlux {
    std::string group;
    std::string condition;  ///< "dirichlet", "neumann", "robin", or "none" (faces in no condition's group)
    double flux = 0;
};

/// The integrals of the solution and the data over one region (a physical group of the
/// mesh's dimension; "" for cells in none).
struct RegionIntegrals {
    std::string region;
    double volume = 0;
    double u = 0;           ///< int u
    double source = 0;      ///< int f
    double reaction = 0;    ///< int c u
    double convection = 0;  ///< int b . grad u (finite elements)
};

/// The fluxes and integrals of a solution and its balance: the boundary fluxes add up to
/// source - reaction - convection.
struct FluxReport {
    std::string method;  ///< how the boundary fluxes were computed, for the report
    std::vector<GroupFlux> groups;
    std::vector<RegionIntegrals> regions;

    double boundary_total() const;
    /// The regions' sums of one integral.
    double total(double RegionIntegrals::*field) const;
    /// boundary_total() - (source - reaction - convection).
    double imbalance() const;
    /// |imbalance()| over the largest of the balance's terms (0 when all are 0).
    double relative_imbalance() const;
    /// report.json's "fluxes".
    nlohmann::json to_json() const;
    /// The summary's lines: (key, text) pairs.
    std::vector<std::pair<std::string, std::string>> summary() const;
};

}  // namespace gpufem
