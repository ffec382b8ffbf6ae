#include "solver/run/part_fluxes.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "linalg/halo.hpp"

namespace gpufem {
namespace {

/// The point fields' values at the part's ghost nodes replaced by their owners' values (a
/// ghost's own value covers only the cells around it that the part holds).
void ghosts_from_owners(const PartPayload& part, const ExecPtr& exec, const Communicator& device,
                        std::vector<MeshField>& fields)
{
    const std::size_t owned = static_cast<std::size_t>(part.numbering.layout.owned);
    const HaloExchange<double> halo(part.halo, exec, device);
    const ExecPtr host = Executor::create_cpu();
    for (MeshField& field : fields) {
        const Array<double> mine = Array<double>::from_host(exec, std::span<const double>(field.values.data(), owned));
        Array<double> ghosts(exec, static_cast<std::size_t>(halo.ghosts()));
        halo.update(mine, ghosts);
        if (!ghosts.empty())
            copy_bytes(*host, field.values.data() + owned, *exec, ghosts.data(), ghosts.bytes());
    }
}

}  // namespace

FluxReport summed_over_ranks(const Communicator& comm, FluxReport report)
{
    std::vector<double> values;
    for (const GroupFlux& g : report.groups) values.push_back(g.flux);
    for (const RegionIntegrals& r : report.regions)
        values.insert(values.end(), {r.volume, r.u, r.source, r.reaction, r.convection});
    comm.all_reduce_sum(*Executor::create_cpu(), values.data(), static_cast<int>(values.size()));
    std::size_t k = 0;
    for (GroupFlux& g : report.groups) g.flux = values[k++];
    for (RegionIntegrals& r : report.regions) {
        r.volume = values[k], r.u = values[k + 1], r.source = values[k + 2];
        r.reaction = values[k + 3], r.convection = values[k + 4];
        k += 5;
    }
    std::erase_if(report.regions, [](const RegionIntegrals& r) { return r.volume == 0.0; });
    return report;
}

SolutionFluxes part_fluxes(const CaseSpec& spec, const PartPayload& part, const ExecPtr& exec,
                           const Communicator& host, const Communicator& device, const HostVector<double>& u)
{
    const Array<double> values = Array<double>::from_host(exec, std::span<const double>(u.data(), u.size()));
    const FluxScope scope{part.numbering.layout.owned, part.part.own_cells};
    // Held in double: the ghosts' values are exchanged and the piece's nodes picked from them.
    SolutionFluxes fluxes = fe_fluxes<double>(part.part.mesh, spec.problem, values, scope, {false, {}});
    set_flux_field_precision(fluxes, spec.output.flux_precision == Precision::float32);
    ghosts_from_owners(part, exec, device, fluxes.point_fields);
    fluxes.report = summed_over_ranks(host, std::move(fluxes.report));
    return fluxes;
}

}  // namespace gpufem
