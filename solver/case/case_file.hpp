#pragma once
// The YAML case file: parsing, validation with key and line in every error, --set overrides.
#include <array>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assembly/fv_discretisation.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/format_options.hpp"
#include "linalg/named_enum.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/vtk_writer.hpp"
#include "solver/krylov/krylov.hpp"
#include "solver/multigrid/amg_options.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"

namespace gpufem {

/// Value type of the matrix, vectors and solver.
enum class Precision { float32, float64 };
/// Their names, as in the case file.
inline constexpr std::array<EnumName<Precision>, 2> precision_names{
    {{Precision::float64, "double"}, {Precision::float32, "float"}}};
/// "double", "float"
inline const char* precision_name(Precision p) { return enum_name(precision_names, p).data(); }

/// Where a case runs: auto uses CUDA when a device is present.
enum class BackendChoice { automatic, cpu, cuda };
/// Their names, as in the case file and on the command line.
inline constexpr std::array<EnumName<BackendChoice>, 3> backend_choice_names{
    {{BackendChoice::automatic, "auto"}, {BackendChoice::cpu, "cpu"}, {BackendChoice::cuda, "cuda"}}};
/// "auto", "cpu", "cuda"
inline const char* backend_choice_name(BackendChoice b)
{
    return enum_name(backend_choice_names, b).data();
}

/// Krylov solver settings.
struct SolverSpec {
    KrylovMethod method = KrylovMethod::cg;
    KrylovVariant variant = KrylovVariant::merged;
    /// solver.preconditioner: an entry of preconditioner_registry() (default none).
    const PreconditionerEntry* preconditioner = &default_preconditioner();
    double tolerance = 1e-8;              ///< relative residual ||b - A x|| / ||b||
    int max_iterations = 10000;
    int check_every = 10;                 ///< merged: iterations between host residual reads
    GraphMode cuda_graph = GraphMode::automatic;
    bool time_spmv = true;                ///< per-iteration SpMV events
    bool fused_dot = true;                ///< merged CG: p.Ap in the product's pass where offered
    bool fused_direction = false;         ///< merged CG: the direction too (two kernels an iteration)
    ResidentMode resident_cg = ResidentMode::off;  ///< merged CG: the whole solve in one kernel
    AmgOptions amg;                       ///< solver.amg (preconditioner amg)
};

/// What a run writes besides report.json and spmv_timings.csv.
struct OutputSpec {
    VtuCompression compression = VtuCompression::lz4;  ///< of result.vtu
    bool write_solution = true;  ///< false: no result.vtu (benchmarks, timing runs)
    /// The fluxes, integrals and balance of the solution and the flux fields (output.fluxes:
    /// auto is write_solution).
    bool fluxes = true;
    Precision flux_precision = Precision::float32;  ///< how result.vtu stores the flux fields
};

/// An external linear system (the case's `matrix` map) in place of a mesh and a PDE.
struct MatrixFileSpec {
    std::filesystem::path file;  ///< A: a Matrix Market coordinate file, square
    std::filesystem::path rhs;   ///< b ("": b = A 1, and the error of the solution against 1 is reported)
};

/// How the PDE becomes a linear system.
enum class DiscretisationKind { fe, fv };
/// Their names, as in the case file.
inline constexpr std::array<EnumName<DiscretisationKind>, 2> discretisation_names{
    {{DiscretisationKind::fe, "fe"}, {DiscretisationKind::fv, "fv"}}};

/// A fully validated case.
struct CaseSpec {
    std::filesystem::path case_path;  ///< the YAML file ("" when parsed from text)
    std::string name;                 ///< case name: the file's stem
    MeshSpec mesh;                    ///< paths resolved relative to the case file's folder;
                                      ///< mesh.degree is the polynomial degree (the first of
                                      ///< degrees), the one place it is kept
    /// An external system (matrix: {file, rhs}) instead of mesh, degree and problem.
    std::optional<MatrixFileSpec> matrix;
    std::vector<int> degrees{1};      ///< degree: N or [N, ...] (a sweep when several)
    std::vector<int> refines{0};      ///< mesh.refine: N or [N, ...] (a sweep when several)
    /// problem.kappa: an expression or a list of them (a coefficient sweep when several:
    /// the points of one mesh and degree share the mesh and update one preconditioner
    /// hierarchy); problem.kappa holds the first, or the point's own after expand_sweep.
    std::vector<std::string> kappas{"1"};
    int kappa_index = 0;              ///< the point's entry of the case's kappas (expand_sweep)
    bool size_scales_with_degree = false;  ///< mesh.size is multiplied by the degree (constant
                                           ///< unknowns across a degree sweep)
    ProblemSpec problem;
    /// discretisation: fe (Lagrange finite elements, the default) | fv (cell-centred finite
    /// volumes, options in fv).
    DiscretisationKind discretisation = DiscretisationKind::fe;
    FvOptions fv;
    std::string format = "csr";       ///< a format or operator level (find_operator, assembly/operator_levels.hpp),
                                      ///< or "auto" (solver/run/format_choice.hpp)
    FormatOptions format_options;     ///< each format's own options, parsed by the format, and
                                      ///< the reordering (case key reorder)
    int auto_iterations = 0;          ///< format: auto: iterations to count conversions
                                      ///< against (0: estimated by a short run)
    SolverSpec solver;
    Precision precision = Precision::float64;
    BackendChoice backend = BackendChoice::automatic;
    OutputSpec output;
    nlohmann::json resolved;          ///< the case as resolved (overrides and defaults applied)
    /// Where each key was given ("problem.dirichlet.wall" -> "case.yaml:12", or "--set ..."),
    /// for errors found after reading (a group the mesh lacks): see locate_case_error.
    std::map<std::string, std::string> key_locations;
};

/// Sets the backend (the command line's --backend), after the case file's own value was
/// validated; the resolved case records it.
void set_backend(CaseSpec& spec, BackendChoice backend);

/// Error in a case file; what() names the file, the key and the line.
class CaseError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Reads and validates a case file. overrides are "dotted.key=value" strings (--set), applied
/// before validation; a value is parsed as YAML ("3", "1e-6", "[1, 2]", "sin(x)").
CaseSpec parse_case_file(const std::filesystem::path& path,
                         const std::vector<std::string>& overrides = {});

/// Same, from YAML text (name is used in messages; relative paths resolve against base_dir).
CaseSpec parse_case_text(const std::string& text, const std::string& name,
                         const std::filesystem::path& base_dir,
                         const std::vector<std::string>& overrides = {});

/// True when the case lists several degrees, refinement levels or kappas.
inline bool is_sweep(const CaseSpec& spec)
{
    return spec.degrees.size() > 1 || spec.refines.size() > 1 || spec.kappas.size() > 1;
}

/// `message` with the case file's line (or --set option) put before the first key path of
/// spec.key_locations it names at its start or after ": " ("problem.dirichlet.wall: ..." becomes
/// "case.yaml:12: problem.dirichlet.wall: ..."); unchanged when it names none or is located.
std::string locate_case_error(const CaseSpec& spec, const std::string& message);

/// One case per combination of degree, refinement level and kappa (degree-major, kappa
/// innermost: a mesh's coefficient points follow each other), each with a single degree,
/// refinement and kappa (kappa_index its entry) and its `resolved` updated.
std::vector<CaseSpec> expand_sweep(const CaseSpec& spec);

/// The case-file reference (every key, its type, default and meaning), for --help and docs/case-reference.md.
std::string case_file_reference();

}  // namespace gpufem
