#pragma once
// The account of a run across ranks: each rank's phase times and sizes gathered on every rank,
// the run's totals in a RunRecord (as one rank's run reports them), and report.json's
// "parallel" section (per-rank phases as min / max / mean, halo bytes, load balance, the
// partition's cut).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assembly/discretisation.hpp"
#include "mesh/mesh_partition.hpp"
#include "solver/run/distributed_run.hpp"
#include "solver/run/distributed_system.hpp"

namespace gpufem {

/// One rank's wall times of the phases of a distributed run (seconds).
struct RankPhases {
    double startup = 0;    ///< from main() to the run (the executor, the communicators)
    double mesh = 0;       ///< rank 0: reading or meshing the whole mesh, and its checks
    double partition = 0;  ///< rank 0: METIS, the numbering, the halo and the parts
    double scatter = 0;    ///< sending and unpacking the parts
    double assembly = 0;   ///< the rank's rows (its ghost cells included)
    double operator_build = 0;  ///< ghost Dirichlet columns, the split, the local format
    double setup = 0;      ///< the preconditioner
    double solve = 0;      ///< the Krylov solve and the true residual
    double output = 0;     ///< the ghosts of u and the rank's piece
};

/// What rank 0 reports of the whole mesh and its partition (the whole mesh itself may never
/// have been built: generated box shapes are made part by part).
struct WholeMeshFacts {
    std::string source;
    int dim = 0;
    std::string cells;  ///< the cells' description (Mesh::describe_cells)
    long long num_nodes = 0;
    long long num_cells = 0;
    std::vector<std::string> boundary_groups;
    MeshBuildTimes build_times;
    CellPartition partition;  ///< its sizes and cut (the per-cell parts may be left out)
    std::string cache = "off: a built-in shape";  ///< what the mesh cache did (MeshCacheStatus::describe)
};

/// The facts of a whole mesh and its partition.
WholeMeshFacts whole_mesh_facts(const Mesh& whole, const CellPartition& partition);

/// What the ranks measured and what is reported.
struct DistributedAccount {
    RankPhases mine;
    RunRecord record;          ///< the run's totals (every rank has them)
    nlohmann::json parallel;   ///< report.json's "parallel" section
};

/// result_<rank>.vtu.
std::string piece_file_name(int rank);

/// Gathers every rank's phases and sizes (collective) into account.record and
/// account.parallel. whole: rank 0's (null elsewhere); piece: this rank's output
/// (its error norms, when the case has an exact solution).
template <typename V>
void account_for_ranks(const CaseSpec& spec, const RankGroup& group, const PartPayload& part,
                       const DistributedSystem<V>& system, const WholeMeshFacts* whole,
                       const SolutionOutput& piece, const RunOptions& options, DistributedAccount& account);

/// report.json of a distributed run: make_report's, with the "parallel" section.
nlohmann::json make_distributed_report(const CaseSpec& spec, const DistributedAccount& account);

}  // namespace gpufem
