#pragma once
// The fluxes of a run across ranks: each rank computes them on its part (its own cells and
// the cells around its owned nodes), sums its owned nodes' and own cells' shares, and the
// ranks' shares are added up, so that report.json holds the same fluxes and integrals as a
// run on one rank.
#include "assembly/fe_fluxes.hpp"
#include "linalg/communicator.hpp"
#include "linalg/host_vector.hpp"
#include "solver/case/case_file.hpp"
#include "solver/run/part_payload.hpp"

namespace gpufem {

/// The fluxes of the rank's part from u at every node it holds (owned and ghosts, part
/// order, on the host), computed on exec: the fields over the part's cells and nodes (a
/// ghost node's point flux from its owner through `device`), the report summed over the ranks
/// of `host` (collective on both communicators; regions no rank's cells lie in left out).
SolutionFluxes part_fluxes(const CaseSpec& spec, const PartPayload& part, const ExecPtr& exec,
                           const Communicator& host, const Communicator& device, const HostVector<double>& u);

/// The report's group fluxes and region integrals summed over the ranks of comm (every rank's
/// report lists the same groups and regions in the same order), regions with no volume left
/// out.
FluxReport summed_over_ranks(const Communicator& comm, FluxReport report);

}  // namespace gpufem
