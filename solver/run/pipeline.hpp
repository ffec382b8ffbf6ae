#pragma once
// The stages every command runs — executor, mesh, discretisation, system (operator in its
// format), solve — written once; `gpufem run`, sweeps, `bench spmv` and `bench solver` are
// built from them:
//
//   case ─► make_executor ─► load_case_mesh ─► make_discretisation ─► build_case_system
//        ─► solve_system (the permutation round trip, the preconditioner) ─► solution_output
#include <memory>

#include "assembly/discretisation.hpp"
#include "assembly/matrix_file_system.hpp"
#include "solver/case/case_file.hpp"
#include "solver/krylov/krylov.hpp"

namespace gpufem {

/// The executor of the case's backend (auto: cuda when a device is present and this build runs
/// on it, else the CPU, with a warning when a device was there); throws when cuda is asked for
/// and not there or not runnable (the message names the GPU's compute capability and the
/// architectures built).
ExecPtr make_executor(BackendChoice backend);

/// Whether a CUDA device is visible to make_executor(backend) (cpu: never). Does not make the
/// device's context: whether this build runs on the device is found by make_executor.
bool uses_cuda(BackendChoice backend);

/// The case's input and how long it took (logs it and warns on refined tetrahedra): its mesh,
/// or for a matrix case (CaseSpec::matrix) the external system read from its files and an
/// empty mesh.
struct CaseMesh {
    Mesh mesh;
    std::shared_ptr<const ExternalSystem> external;  ///< matrix cases: A and b as read
    double seconds = 0;  ///< wall time of loading or generating the mesh (reading the files)
    std::string cache;   ///< what the mesh cache did (MeshCacheStatus::describe); "" for a matrix
};
/// Whether a mesh read from a file is also kept on a CUDA executor: a single-process run
/// keeps it there for the mesh checks, assembly, fluxes and errors (each would otherwise
/// upload it again); a rank that partitions the mesh does not hold the whole mesh there.
enum class MeshCopy { host_only, also_on_device };

/// How far a mesh from Gmsh is taken: finished (mesh.refine and mesh.degree's nodes applied),
/// or coarse (as Gmsh made or read it: the ranks of a run refine their parts themselves).
enum class MeshStage { finished, coarse };

/// Loads or generates the case's mesh (mesh.degree's nodes), timed; a generated shape is also
/// written on `exec` when that is a CUDA executor (assembly then uploads nothing), a mesh read
/// from a file uploaded there when `copy` says so. A matrix case reads its Matrix Market files
/// instead. MeshStage::coarse (a mesh through Gmsh only): checked, not refined or numbered.
CaseMesh load_case_mesh(const CaseSpec& spec, const ExecPtr& exec = nullptr, MeshCopy copy = MeshCopy::host_only,
                        MeshStage stage = MeshStage::finished);

/// The discretisation of the case's problem on the loaded mesh (finite elements of the mesh's
/// degree), or the external system of a matrix case; spec and input must outlive it.
template <typename V>
std::unique_ptr<Discretisation<V>> make_discretisation(const CaseSpec& spec, const CaseMesh& input);

/// The system in the case's format (a format or operator level: find_operator) with its options and reordering; with
/// format: auto, in the format choose_format picks (DiscreteSystem::format, format_choice).
template <typename V>
DiscreteSystem<V> build_case_system(const ExecPtr& exec, const Discretisation<V>& disc,
                                    const CaseSpec& spec);

/// The Krylov settings of the case (method and variant apart).
SolveOptions solve_options(const SolverSpec& solver);

/// A preconditioner kept from one solve for the next solve of a system with the same pattern
/// (the points of a coefficient sweep on one mesh): solve_system stores the one it sets up
/// here and, next time, updates its hierarchy with the new values instead of a new setup.
class KeptPreconditioner {
public:
    virtual ~KeptPreconditioner() = default;
};

/// The kept preconditioner of value type V (solve_system's).
template <typename V>
class KeptPreconditionerOf final : public KeptPreconditioner {
public:
    std::unique_ptr<Preconditioner<V>> preconditioner;  ///< null: none kept yet
    /// The system's format and whether it renumbered the unknowns when the hierarchy was set
    /// up: a system in another format (format: auto may choose another) is set up again.
    std::string format;
    bool permuted = false;
};

/// A solved system: the solution in the original numbering and the solver's account.
template <typename V>
struct SystemSolution {
    Array<V> x;
    SolveResult result;
    double seconds = 0;  ///< the solve, preconditioner setup included (synchronised wall time)
    /// The preconditioner's report (setup time, levels, ...; see Preconditioner::report);
    /// null without a preconditioner.
    nlohmann::json preconditioner;
    std::vector<int> pass_iterations;  ///< iterations of the first solve and of each correction pass
    /// Correction passes: ||b_k - A x|| / ||b_k|| of the solution against the last corrected
    /// right-hand side b_k (<= the tolerance: the correction converged).
    double correction_change = 0;
    /// How the correction was solved ("implicit", "deferred", ...); empty without one.
    std::string correction;
};

/// A converged solve whose true residual ||b - A x|| / ||b|| exceeds this many times the
/// tolerance is reported as stagnated (exit code 2).
inline constexpr double true_residual_slack = 10.0;

/// The smallest tolerance a solve in this precision accepts: its unit roundoff (float
/// 1.19e-7, double 2.2e-16); no residual can be reduced below it.
double smallest_tolerance(Precision precision);

/// Solves the system with the case's solver settings: right-hand side and initial guess into
/// the operator's numbering, the preconditioner built from the operator, the solve, the
/// solution back in the original numbering, and the true residual of the solution
/// (SolveResult::true_relative_residual; a converged solve that misses the tolerance by more
/// than true_residual_slack becomes stagnated).
/// With disc and a correction (Discretisation::correction_passes > 0): an affine one is
/// solved with the system (BiCGSTAB on solver/run/corrected_operator.hpp, A's preconditioner);
/// otherwise, or if that fails, deferred passes follow the first solve (at most
/// correction_passes: the same operator and preconditioner, the right-hand side from the last
/// solution, until the solution meets it to the tolerance); the result is the last solve's,
/// SystemSolution::pass_iterations has every solve's iterations.
/// With kept: an amg or pmg hierarchy kept there from an earlier
/// solve of the same pattern is updated with this system's values (Preconditioner::update, AMG:
/// the aggregates and transfers kept, the numeric setup again; report "hierarchy": "updated",
/// its setup_seconds the update's); otherwise, or when the update cannot be done (pmg with
/// element-wise coarse operators, another size), the preconditioner is set up and kept there.
template <typename V>
SystemSolution<V> solve_system(const DiscreteSystem<V>& system, const SolverSpec& solver,
                               const Discretisation<V>* disc = nullptr, KeptPreconditionerOf<V>* kept = nullptr);

/// ||b - A u|| / ||b|| of a float solution u (original numbering, on exec) against the case's
/// system assembled again in double (csr, or the case's format when it is matrix-free): what
/// the float solve's rounding leaves against the double discrete problem, beside the float
/// true residual.
double true_residual_in_double(const ExecPtr& exec, const CaseSpec& spec, const CaseMesh& input,
                               const Array<float>& u);

}  // namespace gpufem
