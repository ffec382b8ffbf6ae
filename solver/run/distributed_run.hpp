#pragma once
// `gpufem run` on several ranks (mpirun -np N gpufem run case.yaml): rank 0 reads or meshes
// the case's mesh, partitions its cells (METIS) and sends each rank its part; every rank
// assembles its rows on its own device and the ranks solve together through a communicator;
// each writes its piece of the solution (result_<rank>.vtu) and rank 0 joins them in
// result.pvtu and writes report.json with every rank's phases.
#include <exception>
#include <memory>
#include <stdexcept>

#include "solver/run/run_case.hpp"

#include "solver/run/part_payload.hpp"

namespace gpufem {

class Communicator;

/// A failure every rank knows of (rank 0's bad input, found before anything was sent): each
/// rank stops with exit code 1, and only the rank where it happened prints the message.
class StoppedOnEveryRank : public std::runtime_error {
public:
    StoppedOnEveryRank(const std::string& message, bool here) : std::runtime_error(message), here_(here) {}
    /// Whether it happened on this rank (which reports it).
    bool here() const { return here_; }

private:
    bool here_;
};

/// Throws StoppedOnEveryRank on every rank when any rank's failure is set (collective): the
/// lowest rank that failed reports its message.
void stop_if_any_failed(const Communicator& host, const std::exception_ptr& failure);

/// The ranks of a run and how they talk: host data through `host` (MPI), the solver's vectors
/// through `device` (NCCL between GPUs, or the same MPI communicator), this rank's executor.
struct RankGroup {
    const Communicator& host;
    const Communicator& device;
    ExecPtr exec;
    int ranks_on_node = 1;  ///< the ranks sharing this rank's host (and its cores)
};

/// Throws std::invalid_argument naming the key when the case asks for what a run across
/// ranks does not do: an operator level or a preconditioner whose registry entry does not
/// run across ranks.
void check_distributed_case(const CaseSpec& spec);

struct WholeMeshFacts;
class KeptPreconditioner;

/// What the points of a sweep across ranks that differ only in kappa share: this rank's part
/// of the mesh (with its device copy), on rank 0 the whole mesh's facts for the report, and
/// the multigrid hierarchy the next point updates (solver/run/rank_preconditioner.hpp).
struct RankSweepReuse {
    std::shared_ptr<const PartPayload> part;
    std::shared_ptr<const WholeMeshFacts> whole;
    std::shared_ptr<KeptPreconditioner> preconditioner;
};

/// This rank's part of the case's mesh, its numbering and halo: generated here for a built-in
/// box shape, else cut by rank 0 from the whole mesh and sent (collective). Throws
/// StoppedOnEveryRank on every rank for bad input.
PartPayload part_of_rank(const CaseSpec& spec, const RankGroup& group);

/// Runs spec across the ranks of group (see the header comment); every rank calls it. Returns
/// the run's record (the same solve account on every rank; the totals on rank 0). Throws on a
/// failure of this rank; StoppedOnEveryRank for one found on rank 0 before the parts were sent.
/// With reuse, the part is taken from it when it holds one (record.mesh_reused), and put
/// there otherwise.
RunRecord run_distributed_case(const CaseSpec& spec, const RunOptions& options, const RankGroup& group,
                               RankSweepReuse* reuse = nullptr);

}  // namespace gpufem
