// The case file: YAML text -> overrides -> a validated CaseSpec and its resolved JSON.
#include "solver/case/case_file.hpp"
#include "solver/case/case_format_options.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <span>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "assembly/cell_data_requests.hpp"
#include "assembly/expression.hpp"
#include "assembly/operator_levels.hpp"
#include "linalg/file_kind.hpp"
#include "solver/case/case_coefficients.hpp"
#include "solver/case/case_overrides.hpp"
#include "solver/case/case_reader.hpp"
#include "solver/run/format_choice.hpp"

namespace gpufem {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Alias = std::pair<std::string_view, std::string_view>;

constexpr std::string_view top_keys[] = {"mesh",      "matrix",  "degree",         "problem",
                                         "discretisation", "fv",
                                         "format",    "reorder", "auto_iterations", "format_options", "solver",
                                         "precision", "backend", "output"};
constexpr std::string_view output_keys[] = {"compression", "write", "fluxes", "flux_precision"};
constexpr std::string_view auto_booleans[] = {"auto", "true", "false"};
constexpr std::string_view mesh_keys[] = {"file", "geo",    "shape",
                                          "elements", "size", "refine",
                                          "size_scales_with_degree", "allow_commands",
                                          "time_limit", "script_time_limit", "geometry_order", "gmsh_threads",
                                          "cache", "min_quality", "warn_quality", "refine_onto_geometry"};
constexpr std::string_view matrix_keys[] = {"file", "rhs"};
constexpr std::string_view booleans[] = {"true", "false"};
constexpr std::string_view mesh_sources[] = {"file", "geo", "shape"};
constexpr std::string_view shapes[] = {"unit_square", "unit_cube", "l_shape", "disk"};
constexpr std::string_view elements_2d[] = {"triangle", "quadrilateral"};
constexpr std::string_view elements_3d[] = {"tetrahedron", "hexahedron"};
constexpr std::string_view element_names[] = {"triangle", "quadrilateral", "tetrahedron",
                                              "hexahedron"};
constexpr Alias element_aliases[] = {
    {"tri", "triangle"}, {"quad", "quadrilateral"}, {"tet", "tetrahedron"}, {"hex", "hexahedron"}};
constexpr std::string_view problem_keys[] = {"kappa", "f", "exact", "convection", "dirichlet",
                                             "neumann", "robin", "c"};
constexpr std::string_view robin_keys[] = {"h", "u_inf"};
constexpr std::string_view solver_keys[] = {"method",         "variant",     "preconditioner",
                                            "tolerance",      "max_iterations", "check_every",
                                            "cuda_graph",     "time_spmv",   "fused_dot",
                                            "fused_direction", "resident_cg", "amg"};
constexpr std::string_view amg_keys[] = {"strength_threshold", "smoother",  "degree",
                                         "coarse_size",        "max_levels", "cycle",
                                         "aggregation",        "gather_rows", "precision",
                                         "prolongator",        "pa_coarse",   "eigen_steps",
                                         "coarsening",         "classical_threshold",
                                         "interpolation_entries", "through_degree_two"};

constexpr std::string_view fv_keys[] = {"nonorthogonal_correctors", "correction_limit", "correction"};

constexpr double default_shape_size = 0.1;

/// Counts the documents of a YAML stream (the events themselves are not kept).
class DocumentCounter : public YAML::EventHandler {
public:
    int documents = 0;
    YAML::Mark second;  ///< where the second document starts
    void OnDocumentStart(const YAML::Mark& mark) override
    {
        if (++documents == 2) second = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

/// The only YAML document of text (a null node when there is none). Not YAML::LoadAll: on a
/// token that starts no node (a ',' outside [ ] or { }) yaml-cpp 0.7's LoadAll loops forever
/// adding null documents (yaml-cpp issue 1040, found by fuzzing); the documents are counted
/// here with a stop at the second.
YAML::Node load_document(const std::string& text, const std::string& name)
{
    YAML::Node document;
    DocumentCounter counter;
    try {
        document = YAML::Load(text);
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
        }
    } catch (const YAML::Exception& error) {
        if (error.mark.is_null()) {
            throw CaseError(name + ": invalid YAML: " + error.msg);
        }
        // YAML indents with spaces; a tab near the error is the usual cause.
        std::string hint;
        std::size_t line = 1, tab_line = 0;
        for (char c : text) {
            if (c == '\t') {
                tab_line = line;
                break;
            }
            line += c == '\n';
        }
        if (tab_line > 0 && tab_line <= static_cast<std::size_t>(error.mark.line) + 2)
            hint = "; line " + std::to_string(tab_line) +
                   " has a tab character: YAML indents with spaces only";
        throw CaseError(name + ":" + std::to_string(error.mark.line + 1) + ": invalid YAML: " +
                        error.msg + " (column " + std::to_string(error.mark.column + 1) + ")" +
                        hint);
    }
    if (counter.documents > 1 && document.IsNull())
        throw CaseError(name + ":" + std::to_string(counter.second.line + 1) +
                        ": invalid YAML: this line starts no key or value (a ',' outside [ ] or "
                        "{ }?) (column " + std::to_string(counter.second.column + 1) + ")");
    if (counter.documents > 1) {
        throw CaseError(name + ":" + std::to_string(counter.second.line + 1) +
                        ": a case file holds one YAML document; found a second one");
    }
    return document;
}

/// text relative to base_dir unless absolute, normalised ("cases/./a.msh" -> "cases/a.msh").
std::string resolve_path(const std::string& text, const fs::path& base_dir)
{
    fs::path path(text);
    if (path.is_relative() && !base_dir.empty()) {
        path = base_dir / path;
    }
    return path.lexically_normal().string();
}

/// True for the built-in shapes that are volumes.
bool is_3d_shape(const std::string& shape)
{
    return shape == "unit_cube";
}

/// The mesh source and the list of refinement levels (one entry unless the case sweeps).
struct MeshEntry {
    MeshSpec mesh;
    std::vector<int> refines;
    bool size_scales_with_degree = false;
};

/// The one source key of the mesh map (file, geo or shape); fails on none or several.
const CaseValue& find_mesh_source(const CaseReader& reader, const CaseValue& value,
                                  const std::vector<CaseValue>& entries)
{
    const CaseValue* source = nullptr;
    for (const CaseValue& entry : entries) {
        if (std::find(std::begin(mesh_sources), std::end(mesh_sources), entry.key) ==
            std::end(mesh_sources)) {
            continue;
        }
        if (source != nullptr) {
            reader.fail(entry, "'" + source->key + "' and '" + entry.key +
                                   "' are both given; expected exactly one of file, geo, shape");
        }
        source = &entry;
    }
    if (source == nullptr) {
        reader.fail(value, "expected exactly one of file, geo, shape (e.g. mesh: {shape: unit_square})");
    }
    return *source;
}

/// The mesh's source: a built-in shape (with its default size and elements) or a file whose
/// path is resolved against base_dir and checked.
MeshSpec read_mesh_source(const CaseReader& reader, const CaseValue& source, const fs::path& base_dir,
                          json& resolved)
{
    MeshSpec mesh;
    if (source.key == "shape") {
        mesh.kind = MeshSpec::Kind::shape;
        mesh.shape = reader.to_choice(source, shapes);
        mesh.size = default_shape_size;
        mesh.elements = is_3d_shape(mesh.shape) ? "hexahedron" : "quadrilateral";
        resolved["shape"] = mesh.shape;
        return mesh;
    }
    mesh.kind = source.key == "file" ? MeshSpec::Kind::file : MeshSpec::Kind::geo;
    const std::string text = reader.to_scalar(source, "a file path");
    mesh.path = resolve_path(text, base_dir);
    if (const std::string problem = not_a_regular_file(mesh.path); !problem.empty()) {
        const std::string resolved_note = mesh.path == text ? "" : " (resolved to '" + mesh.path + "')";
        reader.fail(source, "file '" + text + "' " + problem + resolved_note);
    }
    resolved[source.key] = mesh.path;
    return mesh;
}

/// mesh.elements (a shape's, fitting its dimension) and mesh.size (geo and shape only).
void read_mesh_elements_and_size(const CaseReader& reader, const std::vector<CaseValue>& entries, MeshSpec& mesh)
{
    if (const CaseValue* elements = find_entry(entries, "elements")) {
        if (mesh.kind != MeshSpec::Kind::shape) {
            reader.fail(*elements, "only valid with mesh.shape (a mesh file brings its own elements)");
        }
        mesh.elements = reader.to_choice(*elements, element_names, element_aliases);
        const bool is_3d = is_3d_shape(mesh.shape);
        const std::span<const std::string_view> fitting =
            is_3d ? std::span<const std::string_view>(elements_3d)
                  : std::span<const std::string_view>(elements_2d);
        if (std::find(fitting.begin(), fitting.end(), mesh.elements) == fitting.end()) {
            reader.fail(*elements, "'" + mesh.elements + "' does not fit the " + (is_3d ? "3D" : "2D") +
                                       " shape '" + mesh.shape + "' (use " + std::string(fitting[0]) + " or " +
                                       std::string(fitting[1]) + ")");
        }
    }
    if (const CaseValue* size = find_entry(entries, "size")) {
        if (mesh.kind == MeshSpec::Kind::file) {
            reader.fail(*size, "only valid with mesh.geo or mesh.shape");
        }
        mesh.size = reader.to_double(*size, "a number > 0");
        if (mesh.size <= 0.0) {
            reader.fail(*size, "expected a number > 0, got '" + size->node.Scalar() + "'");
        }
    }
}

/// A number of seconds > 0 (a time limit).
double read_seconds(const CaseReader& reader, const CaseValue& limit)
{
    const double seconds = reader.to_double(limit, "seconds > 0");
    if (!(seconds > 0.0) || !std::isfinite(seconds))
        reader.fail(limit, "expected seconds > 0, got '" + limit.node.Scalar() + "'");
    return seconds;
}

/// The options of meshes Gmsh reads or makes: allow_commands, time_limit, script_time_limit,
/// gmsh_threads, refine_onto_geometry and geometry_order, each checked against the source.
void read_gmsh_options(const CaseReader& reader, const std::vector<CaseValue>& entries, MeshSpec& mesh,
                       json& resolved)
{
    if (const CaseValue* flag = find_entry(entries, "allow_commands")) {
        if (mesh.kind != MeshSpec::Kind::geo) reader.fail(*flag, "only valid with mesh.geo");
        mesh.allow_commands = reader.to_choice(*flag, booleans) == "true";
        resolved["allow_commands"] = mesh.allow_commands;
    }
    if (const CaseValue* limit = find_entry(entries, "time_limit")) {
        mesh.time_limit = read_seconds(reader, *limit);
        resolved["time_limit"] = mesh.time_limit;
    }
    if (const CaseValue* limit = find_entry(entries, "script_time_limit")) {
        if (mesh.kind != MeshSpec::Kind::geo) reader.fail(*limit, "only valid with mesh.geo");
        mesh.script_time_limit = read_seconds(reader, *limit);
        resolved["script_time_limit"] = mesh.script_time_limit;
    }
    if (mesh_needs_gmsh(mesh)) mesh.gmsh_threads = 0;  // all of the host's: the cache keeps reruns identical
    if (const CaseValue* threads = find_entry(entries, "gmsh_threads")) {
        if (!mesh_needs_gmsh(mesh)) reader.fail(*threads, "only valid with meshes from Gmsh (file, geo, shape: disk)");
        mesh.gmsh_threads = reader.to_int(*threads, 0);
        resolved["gmsh_threads"] = mesh.gmsh_threads;
    }
    if (const CaseValue* flag = find_entry(entries, "refine_onto_geometry")) {
        if (mesh.kind == MeshSpec::Kind::file || (mesh.kind == MeshSpec::Kind::shape && mesh.shape != "disk"))
            reader.fail(*flag, "only valid with geometries Gmsh meshes (geo, shape: disk): a mesh file "
                               "and gpufem's own shapes have no curved geometry to refine onto");
        mesh.snap_to_geometry = reader.to_choice(*flag, booleans) == "true";
        resolved["refine_onto_geometry"] = mesh.snap_to_geometry;
    }
    if (const CaseValue* order = find_entry(entries, "geometry_order")) {
        if (mesh.kind == MeshSpec::Kind::shape && mesh.shape != "disk")
            reader.fail(*order, "only valid with meshes from Gmsh (file, geo, shape: disk): gpufem "
                                "generates '" + mesh.shape + "' straight-sided");
        mesh.geometry_order = reader.to_int(*order, 1);
        if (mesh.geometry_order > 4) reader.fail(*order, "expected an integer from 1 to 4");
        resolved["geometry_order"] = mesh.geometry_order;
    }
}

/// mesh.cache: whether Gmsh's mesh of a file or .geo file is kept in the mesh cache (default
/// true; built-in shapes are never cached, so the key changes nothing there).
void read_mesh_cache(const CaseReader& reader, const std::vector<CaseValue>& entries, MeshSpec& mesh,
                     json& resolved)
{
    mesh.cache = mesh.kind != MeshSpec::Kind::shape;
    if (const CaseValue* flag = find_entry(entries, "cache")) {
        const bool wanted = reader.to_choice(*flag, booleans) == "true";
        mesh.cache = wanted && mesh.kind != MeshSpec::Kind::shape;
        resolved["cache"] = wanted;
    }
}

/// mesh.min_quality and mesh.warn_quality (file and geo; gpufem's own shapes are not checked):
/// 0 <= min_quality <= warn_quality <= 1.
void read_quality_limits(const CaseReader& reader, const std::vector<CaseValue>& entries, MeshSpec& mesh,
                         json& resolved)
{
    const auto read_limit = [&](const char* key, double& limit) {
        const CaseValue* value = find_entry(entries, key);
        if (!value) return;
        if (mesh.kind == MeshSpec::Kind::shape)
            reader.fail(*value, "only valid with mesh.file and mesh.geo: gpufem's own shapes are valid by "
                                "construction and not checked");
        limit = reader.to_double(*value, "a quality from 0 to 1");
        if (!(limit >= 0.0 && limit <= 1.0))
            reader.fail(*value, "expected a quality from 0 to 1 (area or volume against an ideal cell's with "
                                "the same longest edge), got '" + value->node.Scalar() + "'");
        resolved[key] = limit;
    };
    read_limit("min_quality", mesh.min_quality);
    read_limit("warn_quality", mesh.warn_quality);
    if (mesh.min_quality > mesh.warn_quality) {
        const CaseValue* value = find_entry(entries, "min_quality");
        if (!value) value = find_entry(entries, "warn_quality");
        reader.fail(*value, fmt::format("mesh.min_quality ({:g}) must not exceed mesh.warn_quality ({:g})",
                                        mesh.min_quality, mesh.warn_quality));
    }
}

/// The mesh map: one source, its options, defaults filled in; resolved gets its JSON.
MeshEntry read_mesh(const CaseReader& reader, const CaseValue& value, const fs::path& base_dir,
                   json& resolved)
{
    const std::vector<CaseValue> entries = reader.entries(value, mesh_keys);
    const CaseValue& source = find_mesh_source(reader, value, entries);
    resolved = json::object();
    MeshSpec mesh = read_mesh_source(reader, source, base_dir, resolved);
    read_mesh_elements_and_size(reader, entries, mesh);
    std::vector<int> refines{0};
    if (const CaseValue* refine = find_entry(entries, "refine")) {
        refines = reader.to_int_list(*refine, 0, 10);
    }
    mesh.refine = refines.front();
    bool scales = false;
    if (const CaseValue* flag = find_entry(entries, "size_scales_with_degree")) {
        if (mesh.kind == MeshSpec::Kind::file) reader.fail(*flag, "only valid with mesh.geo or mesh.shape");
        scales = reader.to_choice(*flag, booleans) == "true";
    }
    read_gmsh_options(reader, entries, mesh, resolved);
    read_mesh_cache(reader, entries, mesh, resolved);
    read_quality_limits(reader, entries, mesh, resolved);
    if (mesh.kind == MeshSpec::Kind::shape) {
        resolved["elements"] = mesh.elements;
    }
    if (mesh.kind != MeshSpec::Kind::file) {
        resolved["size"] = mesh.size > 0.0 ? json(mesh.size) : json(nullptr);
    }
    resolved["refine"] = refines.size() == 1 ? json(refines.front()) : json(refines);
    resolved["size_scales_with_degree"] = scales;
    return {mesh, refines, scales};
}

/// A path key of the matrix map: resolved against the case's folder, the file checked.
fs::path read_matrix_path(const CaseReader& reader, const CaseValue& value, const fs::path& base_dir)
{
    const std::string text = reader.to_scalar(value, "a file path");
    const std::string path = resolve_path(text, base_dir);
    if (const std::string problem = not_a_regular_file(path); !problem.empty())
        reader.fail(value, "file '" + text + "' " + problem + (path == text ? "" : " (resolved to '" + path + "')"));
    return path;
}

/// The matrix map (an external system instead of a mesh); resolved gets its JSON.
MatrixFileSpec read_matrix(const CaseReader& reader, const CaseValue& value, const fs::path& base_dir,
                           json& resolved)
{
    const std::vector<CaseValue> entries = reader.entries(value, matrix_keys);
    const CaseValue* file = find_entry(entries, "file");
    if (file == nullptr)
        reader.fail(value, "expected the key 'file' (a Matrix Market file: matrix: {file: A.mtx})");
    MatrixFileSpec matrix;
    matrix.file = read_matrix_path(reader, *file, base_dir);
    if (const CaseValue* rhs = find_entry(entries, "rhs")) matrix.rhs = read_matrix_path(reader, *rhs, base_dir);
    resolved = {{"file", matrix.file.string()},
                {"rhs", matrix.rhs.empty() ? json(nullptr) : json(matrix.rhs.string())}};
    return matrix;
}

/// The boundary conditions of a dirichlet or neumann map, in written order.
std::vector<BoundaryCondition> read_conditions(const CaseReader& reader, const CaseValue& value,
                                               json& resolved)
{
    std::vector<BoundaryCondition> conditions;
    resolved = json::array();
    for (const CaseValue& entry : reader.entries(value, {})) {
        if (entry.key.empty()) {
            reader.fail(entry, "empty physical group name");
        }
        conditions.push_back({entry.key, reader.to_expression(entry)});
        resolved.push_back({{"group", entry.key}, {"expression", conditions.back().expression}});
    }
    return conditions;
}

/// The robin map (group -> {h, u_inf}), in written order; a group may not have another
/// condition too.
std::vector<RobinCondition> read_robin(const CaseReader& reader, const CaseValue& value, const ProblemSpec& problem,
                                       json& resolved)
{
    std::vector<RobinCondition> conditions;
    resolved = json::array();
    for (const CaseValue& entry : reader.entries(value, {})) {
        if (entry.key.empty()) reader.fail(entry, "empty physical group name");
        for (const auto* others : {&problem.dirichlet, &problem.neumann})
            for (const BoundaryCondition& other : *others)
                if (other.group == entry.key)
                    reader.fail(entry, "group '" + entry.key + "' also has a " +
                                           (others == &problem.dirichlet ? "Dirichlet" : "Neumann") +
                                           " condition; give one condition per group");
        if (!entry.node.IsMap())
            reader.fail(entry, "expected a map {h: H, u_inf: U} (-kappa du/dn = h (u - u_inf))");
        const std::vector<CaseValue> keys = reader.entries(entry, robin_keys);
        const CaseValue* h = find_entry(keys, "h");
        if (h == nullptr) reader.fail(entry, "expected the key 'h' (the transfer coefficient, >= 0)");
        RobinCondition bc{entry.key, reader.to_expression(*h), "0"};
        if (const CaseValue* u_inf = find_entry(keys, "u_inf")) bc.u_inf = reader.to_expression(*u_inf);
        const Expression coefficient(bc.h);
        if (coefficient.is_constant() && !(coefficient.evaluate(0, 0, 0) >= 0))
            reader.fail(*h, "expected h >= 0, got '" + bc.h + "'");
        conditions.push_back(bc);
        resolved.push_back({{"group", bc.group}, {"h", bc.h}, {"u_inf", bc.u_inf}});
    }
    return conditions;
}

/// The most coefficients one case sweeps over.
constexpr std::size_t max_kappas = 64;

/// The problem section; kappas gets problem.kappa's expressions (several: a coefficient sweep,
/// problem.kappa the first).
ProblemSpec read_problem(const CaseReader& reader, const CaseValue& value, json& resolved,
                         std::vector<std::string>& kappas)
{
    ProblemSpec problem;
    const std::vector<CaseValue> entries = reader.entries(value, problem_keys);
    kappas = {problem.kappa};
    resolved = {{"kappa", problem.kappa}, {"f", problem.f}, {"c", problem.reaction}, {"convection", nullptr}};
    if (const CaseValue* kappa = find_entry(entries, "kappa"))
        resolved["kappa"] = read_kappa(reader, *kappa, problem, kappas, max_kappas);
    if (const CaseValue* f = find_entry(entries, "f"))
        resolved["f"] = read_scalar_coefficient(reader, *f, problem.f, problem.f_regions, problem.f_data, false);
    if (const CaseValue* c = find_entry(entries, "c"))
        resolved["c"] = read_scalar_coefficient(reader, *c, problem.reaction, problem.reaction_regions, problem.reaction_data,
                                               true);
    if (const CaseValue* exact = find_entry(entries, "exact")) {
        problem.exact = reader.to_expression(*exact);
    }
    if (const CaseValue* convection = find_entry(entries, "convection"))
        resolved["convection"] = gpufem::read_convection(reader, *convection, problem);
    json dirichlet = json::array();
    json neumann = json::array();
    if (const CaseValue* entry = find_entry(entries, "dirichlet")) {
        problem.dirichlet = read_conditions(reader, *entry, dirichlet);
    }
    if (const CaseValue* entry = find_entry(entries, "neumann")) {
        problem.neumann = read_conditions(reader, *entry, neumann);
        for (const CaseValue& condition : reader.entries(*entry, {})) {
            for (const BoundaryCondition& other : problem.dirichlet) {
                if (other.group == condition.key) {
                    reader.fail(condition, "group '" + condition.key +
                                               "' also has a Dirichlet condition (problem.dirichlet." +
                                               condition.key + "); give one condition per group");
                }
            }
        }
    }
    json robin = json::array();
    if (const CaseValue* entry = find_entry(entries, "robin")) problem.robin = read_robin(reader, *entry, problem, robin);
    resolved["exact"] = problem.exact.empty() ? json(nullptr) : json(problem.exact);
    resolved["dirichlet"] = dirichlet;
    resolved["neumann"] = neumann;
    resolved["robin"] = robin;
    return problem;
}

/// The output map; resolved gets its JSON with defaults. fluxes need a mesh (has_mesh: not a
/// matrix case).
OutputSpec read_output(const CaseReader& reader, const CaseValue& value, bool has_mesh, json& resolved)
{
    OutputSpec output;
    const std::vector<CaseValue> entries = reader.entries(value, output_keys);
    if (const CaseValue* compression = find_entry(entries, "compression")) {
        output.compression = reader.to_enum(*compression, vtu_compression_names);
    }
    if (const CaseValue* write = find_entry(entries, "write")) {
        output.write_solution = reader.to_choice(*write, booleans) == "true";
    }
    output.fluxes = output.write_solution && has_mesh;
    if (const CaseValue* fluxes = find_entry(entries, "fluxes")) {
        const std::string choice = reader.to_choice(*fluxes, auto_booleans);
        if (choice == "true" && !has_mesh)
            reader.fail(*fluxes, "a system read from a matrix file has no mesh to take fluxes on (use auto or false)");
        if (choice != "auto") output.fluxes = choice == "true";
    }
    if (const CaseValue* precision = find_entry(entries, "flux_precision"))
        output.flux_precision = reader.to_enum(*precision, precision_names);
    resolved = {{"compression", enum_name(vtu_compression_names, output.compression)},
                {"write", output.write_solution},
                {"fluxes", output.fluxes},
                {"flux_precision", enum_name(precision_names, output.flux_precision)}};
    return output;
}

/// The fv map; resolved gets its JSON with defaults. The correction's default depends on the
/// preconditioner: implicit with multigrid (a handful of iterations, each applying the
/// correction), deferred otherwise (Jacobi's hundreds of iterations are cheaper on the plain
/// matrix).
FvOptions read_fv(const CaseReader& reader, const CaseValue& value, json& resolved,
                  const PreconditionerEntry& preconditioner)
{
    FvOptions fv;
    const std::vector<CaseValue> entries = reader.entries(value, fv_keys);
    if (const CaseValue* correctors = find_entry(entries, "nonorthogonal_correctors")) {
        fv.nonorthogonal_correctors = reader.to_int(*correctors, 0);
        if (fv.nonorthogonal_correctors > 200) reader.fail(*correctors, "expected an integer from 0 to 200");
    }
    if (const CaseValue* limit = find_entry(entries, "correction_limit")) {
        const std::string expected = "a number from 0 to 1";
        fv.correction_limit = reader.to_double(*limit, expected);
        if (!(fv.correction_limit >= 0.0 && fv.correction_limit <= 1.0))
            reader.fail(*limit, "expected " + expected + ", got '" + limit->node.Scalar() + "'");
    }
    // The limiter makes the correction non-linear in u: only deferred passes can take it.
    const bool limited = fv.correction_limit < 1.0;
    fv.correction = limited || !preconditioner.multigrid ? FvCorrection::deferred : FvCorrection::implicit;
    if (const CaseValue* correction = find_entry(entries, "correction")) {
        fv.correction = reader.to_enum(*correction, fv_correction_names);
        if (fv.correction == FvCorrection::implicit && limited)
            reader.fail(*correction, "implicit needs the unlimited correction (correction_limit: 1); "
                                     "a limited one is non-linear: use deferred");
    }
    resolved = {{"nonorthogonal_correctors", fv.nonorthogonal_correctors},
                {"correction_limit", fv.correction_limit},
                {"correction", enum_name(fv_correction_names, fv.correction)}};
    return fv;
}

/// solver.amg's coarsening and the classical coarsening's settings.
void read_coarsening(const CaseReader& reader, const std::vector<CaseValue>& entries, AmgOptions& amg)
{
    if (const CaseValue* coarsening = find_entry(entries, "coarsening"))
        amg.coarsening = reader.to_enum(*coarsening, amg_coarsening_names);
    if (const CaseValue* theta = find_entry(entries, "classical_threshold")) {
        const std::string expected = "a number > 0 and < 1";
        amg.classical_threshold = reader.to_double(*theta, expected);
        if (!(amg.classical_threshold > 0.0 && amg.classical_threshold < 1.0))
            reader.fail(*theta, "expected " + expected + ", got '" + theta->node.Scalar() + "'");
    }
    if (const CaseValue* entries_per_row = find_entry(entries, "interpolation_entries"))
        amg.interpolation_entries = reader.to_int(*entries_per_row, 0);
}

/// The solver.amg map; resolved gets its JSON with defaults.
AmgOptions read_amg(const CaseReader& reader, const CaseValue& value, json& resolved)
{
    AmgOptions amg;
    const std::vector<CaseValue> entries = reader.entries(value, amg_keys);
    if (const CaseValue* theta = find_entry(entries, "strength_threshold")) {
        const std::string expected = "a number >= 0 and < 1";
        amg.strength_threshold = reader.to_double(*theta, expected);
        if (!(amg.strength_threshold >= 0.0 && amg.strength_threshold < 1.0))
            reader.fail(*theta, "expected " + expected + ", got '" + theta->node.Scalar() + "'");
    }
    if (const CaseValue* smoother = find_entry(entries, "smoother")) {
        amg.smoother = reader.to_enum(*smoother, amg_smoother_names);
    }
    if (const CaseValue* degree = find_entry(entries, "degree")) {
        amg.degree = reader.to_int(*degree, 1);
        if (amg.degree > 10) reader.fail(*degree, "expected an integer from 1 to 10");
    }
    if (const CaseValue* coarse = find_entry(entries, "coarse_size")) {
        amg.coarse_size = reader.to_int(*coarse, 1);
        if (amg.coarse_size > 2048) reader.fail(*coarse, "expected an integer from 1 to 2048");
    }
    if (const CaseValue* levels = find_entry(entries, "max_levels")) {
        amg.max_levels = reader.to_int(*levels, 1);
    }
    if (const CaseValue* gather = find_entry(entries, "gather_rows")) {
        amg.gather_rows = reader.to_int(*gather, 1);
    }
    if (const CaseValue* cycle = find_entry(entries, "cycle")) {
        amg.cycle = reader.to_enum(*cycle, amg_cycle_names);
    }
    if (const CaseValue* aggregation = find_entry(entries, "aggregation")) {
        amg.aggregation = reader.to_enum(*aggregation, amg_aggregation_names);
    }
    if (const CaseValue* precision = find_entry(entries, "precision")) {
        amg.precision = reader.to_enum(*precision, amg_precision_names);
    }
    if (const CaseValue* prolongator = find_entry(entries, "prolongator")) {
        amg.prolongator = reader.to_enum(*prolongator, amg_prolongator_names);
    }
    if (const CaseValue* pa_coarse = find_entry(entries, "pa_coarse")) {
        amg.pa_coarse = reader.to_enum(*pa_coarse, amg_pa_coarse_names);
    }
    if (const CaseValue* steps = find_entry(entries, "eigen_steps")) {
        amg.eigen_steps = reader.to_int(*steps, 1);
        if (amg.eigen_steps < 3 || amg.eigen_steps > 50) reader.fail(*steps, "expected an integer from 3 to 50");
    }
    if (const CaseValue* flag = find_entry(entries, "through_degree_two"))
        amg.through_degree_two = reader.to_choice(*flag, booleans) == "true";
    read_coarsening(reader, entries, amg);
    resolved = {{"strength_threshold", amg.strength_threshold},
                {"smoother", enum_name(amg_smoother_names, amg.smoother)},
                {"degree", amg.degree},
                {"coarse_size", amg.coarse_size},
                {"max_levels", amg.max_levels},
                {"cycle", enum_name(amg_cycle_names, amg.cycle)},
                {"aggregation", enum_name(amg_aggregation_names, amg.aggregation)},
                {"gather_rows", amg.gather_rows},
                {"precision", enum_name(amg_precision_names, amg.precision)},
                {"prolongator", enum_name(amg_prolongator_names, amg.prolongator)},
                {"pa_coarse", enum_name(amg_pa_coarse_names, amg.pa_coarse)},
                {"eigen_steps", amg.eigen_steps},
                {"coarsening", enum_name(amg_coarsening_names, amg.coarsening)},
                {"classical_threshold", amg.classical_threshold},
                {"interpolation_entries", amg.interpolation_entries},
                {"through_degree_two", amg.through_degree_two}};
    return amg;
}

/// The solver map; resolved gets its JSON with defaults.
SolverSpec read_solver(const CaseReader& reader, const CaseValue& value, json& resolved)
{
    SolverSpec solver;
    const std::vector<CaseValue> entries = reader.entries(value, solver_keys);
    if (const CaseValue* method = find_entry(entries, "method")) {
        solver.method = reader.to_enum(*method, krylov_method_names);
    }
    if (const CaseValue* tolerance = find_entry(entries, "tolerance")) {
        const std::string expected = "a number > 0 and < 1";
        solver.tolerance = reader.to_double(*tolerance, expected);
        if (!(solver.tolerance > 0.0 && solver.tolerance < 1.0)) {
            reader.fail(*tolerance, "expected " + expected + ", got '" + tolerance->node.Scalar() + "'");
        }
    }
    if (const CaseValue* max_iterations = find_entry(entries, "max_iterations")) {
        solver.max_iterations = reader.to_int(*max_iterations, 1);
    }
    if (const CaseValue* variant = find_entry(entries, "variant")) {
        solver.variant = reader.to_enum(*variant, krylov_variant_names);
        if (solver.variant == KrylovVariant::single_reduction && solver.method != KrylovMethod::cg)
            reader.fail(*variant, "single_reduction is a variant of CG; with solver.method: " +
                                      std::string(method_name(solver.method)) + " use merged or reference");
    }
    if (const CaseValue* preconditioner = find_entry(entries, "preconditioner")) {
        const std::vector<std::string> names = preconditioner_registry().names();
        const std::vector<std::string_view> choices(names.begin(), names.end());
        solver.preconditioner = &preconditioner_registry().at(reader.to_choice(*preconditioner, choices));
    }
    if (const CaseValue* check_every = find_entry(entries, "check_every")) {
        solver.check_every = reader.to_int(*check_every, 1);
    }
    if (const CaseValue* graph = find_entry(entries, "cuda_graph")) {
        solver.cuda_graph = reader.to_enum(*graph, graph_mode_names);
    }
    if (const CaseValue* time_spmv = find_entry(entries, "time_spmv")) {
        solver.time_spmv = reader.to_choice(*time_spmv, booleans) == "true";
    }
    if (const CaseValue* fused_dot = find_entry(entries, "fused_dot")) {
        solver.fused_dot = reader.to_choice(*fused_dot, booleans) == "true";
    }
    if (const CaseValue* fused_direction = find_entry(entries, "fused_direction")) {
        solver.fused_direction = reader.to_choice(*fused_direction, booleans) == "true";
    }
    if (const CaseValue* resident = find_entry(entries, "resident_cg")) {
        solver.resident_cg = reader.to_enum(*resident, resident_mode_names);
    }
    json amg_resolved;
    const CaseValue* amg = find_entry(entries, "amg");
    solver.amg = read_amg(reader,
                          amg ? *amg
                              : CaseValue{value.path + ".amg", "amg", YAML::Node(),
                                          YAML::Mark::null_mark()},
                          amg_resolved);
    resolved = {{"method", method_name(solver.method)},
                {"variant", variant_name(solver.variant)},
                {"preconditioner", solver.preconditioner->name},
                {"tolerance", solver.tolerance},
                {"max_iterations", solver.max_iterations},
                {"check_every", solver.check_every},
                {"cuda_graph", graph_mode_name(solver.cuda_graph)},
                {"time_spmv", solver.time_spmv},
                {"fused_dot", solver.fused_dot},
                {"fused_direction", solver.fused_direction},
                {"resident_cg", resident_mode_name(solver.resident_cg)},
                {"amg", amg_resolved}};
    return solver;
}

}  // namespace

namespace {

/// The case's YAML document with the overrides applied; throws CaseError when it is empty or
/// not a map.
YAML::Node load_case_root(const std::string& text, const std::string& name,
                          const std::vector<CaseOverride>& overrides)
{
    YAML::Node root = load_document(text, name);
    if (root.IsNull()) {
        throw CaseError(name + ": the case file is empty; it needs at least a mesh (e.g. "
                               "mesh: {shape: unit_square})");
    }
    if (!root.IsMap()) {
        throw CaseError(name + ":" + std::to_string(root.Mark().line + 1) +
                        ": expected a map of keys (" + join_names(top_keys) +
                        ") at the top level, got " + (root.IsSequence() ? "a list" : "a scalar"));
    }
    for (const CaseOverride& override : overrides) {
        apply_override(root, override);
    }
    return root;
}

/// A top-level section; an absent one reads as an empty one: all its defaults.
CaseValue section_of(const std::vector<CaseValue>& entries, std::string_view key)
{
    const CaseValue* entry = find_entry(entries, key);
    return entry ? *entry : CaseValue{std::string(key), std::string(key), YAML::Node(), YAML::Mark::null_mark()};
}

/// Where the system comes from: the mesh map, or the matrix map of an external system (then
/// no key that only a mesh case reads).
void read_system_source(const CaseReader& reader, const std::vector<CaseValue>& entries, const YAML::Node& root,
                        const fs::path& base_dir, CaseSpec& spec, json& resolved)
{
    const CaseValue* mesh = find_entry(entries, "mesh");
    const CaseValue* matrix = find_entry(entries, "matrix");
    if (mesh == nullptr && matrix == nullptr) {
        reader.fail(CaseValue{"mesh", "mesh", YAML::Node(), root.Mark()},
                    "required key missing; give one of file, geo, shape (e.g. mesh: {shape: "
                    "unit_square}), or an external system: matrix: {file: A.mtx}");
    }
    if (matrix != nullptr) {
        // A --set that brought the matrix is blamed, not the case file's line of the other key.
        const CaseOverride* matrix_set = reader.override_within("matrix");
        for (const std::string_view key : {"mesh", "degree", "problem"})
            if (const CaseValue* other = find_entry(entries, key)) {
                const std::string problem = "the system comes from the matrix file (remove one of the two)";
                if (matrix_set && !reader.override_within(other->path))
                    throw CaseError("--set " + matrix_set->text + ": the case also gives '" + std::string(key) +
                                    "' (" + reader.where(other->path, other->mark) + "), which is not used with "
                                    "matrix: " + problem);
                reader.fail(*other, "'" + std::string(key) + "' is not used with matrix: " + problem);
            }
        spec.matrix = read_matrix(reader, *matrix, base_dir, resolved["matrix"]);
        return;
    }
    MeshEntry mesh_entry = read_mesh(reader, *mesh, base_dir, resolved["mesh"]);
    spec.mesh = mesh_entry.mesh;
    spec.refines = mesh_entry.refines;
    spec.size_scales_with_degree = mesh_entry.size_scales_with_degree;
}

/// degree (the mesh's size scaled by it when asked) and the problem of a mesh case.
void read_degree_and_problem(const CaseReader& reader, const std::vector<CaseValue>& entries, CaseSpec& spec,
                             json& resolved)
{
    if (const CaseValue* degree = find_entry(entries, "degree")) {
        spec.degrees = reader.to_int_list(*degree, 1, max_element_degree);
    }
    spec.mesh.degree = spec.degrees.front();
    if (spec.size_scales_with_degree) spec.mesh.size *= spec.mesh.degree;
    if (!spec.matrix) spec.problem = read_problem(reader, section_of(entries, "problem"), resolved["problem"], spec.kappas);
}

/// The problem's cell data: .vtu paths resolved against the case's folder, and the fields the
/// mesh loader reads and checks with the mesh (spec.mesh.cell_fields); a built-in shape has none.
void read_cell_data_requests(const CaseReader& reader, const std::vector<CaseValue>& entries, CaseSpec& spec,
                             const fs::path& base_dir)
{
    ProblemSpec& p = spec.problem;
    const auto resolve = [&](CellDataRef& data) {
        if (!data.file.empty()) data.file = resolve_path(data.file, base_dir);
    };
    for (CellDataRef* data : {&p.kappa_data, &p.f_data, &p.reaction_data}) resolve(*data);
    for (std::vector<RegionValue>* regions : {&p.kappa_regions, &p.f_regions, &p.reaction_regions})
        for (RegionValue& r : *regions) resolve(r.data);
    spec.mesh.cell_fields = cell_data_requests(p);
    if (!spec.mesh.cell_fields.empty() && spec.mesh.kind == MeshSpec::Kind::shape)
        reader.fail(section_of(entries, "problem"),
                    "cell data (" + spec.mesh.cell_fields.front().key + ") comes with a mesh read by Gmsh (mesh.file, "
                    "or mesh.geo with a .vtu file); the built-in shapes have none");
}

/// discretisation (not with a matrix), and what finite volumes refuse: an fv map without
/// them, a degree other than 1.
void read_discretisation(const CaseReader& reader, const std::vector<CaseValue>& entries, CaseSpec& spec)
{
    if (const CaseValue* discretisation = find_entry(entries, "discretisation")) {
        if (spec.matrix)
            reader.fail(*discretisation, "not used with matrix: the system comes from the matrix file");
        spec.discretisation = reader.to_enum(*discretisation, discretisation_names);
    }
    const bool fv = spec.discretisation == DiscretisationKind::fv;
    if (const CaseValue* options = find_entry(entries, "fv"); options && !fv)
        reader.fail(*options, "only used with discretisation: fv");
    if (fv && (spec.degrees.size() != 1 || spec.degrees.front() != 1))
        reader.fail(*find_entry(entries, "degree"), "finite volumes have one unknown per cell: "
                    "degree must be 1 (or left out) with discretisation: fv");
}

/// format (a registered format or level, or auto; matrix-free levels need a finite-element
/// mesh) and auto_iterations.
void read_format_choice(const CaseReader& reader, const std::vector<CaseValue>& entries, CaseSpec& spec)
{
    if (const CaseValue* format = find_entry(entries, "format")) {
        std::vector<std::string> names = operator_names();
        names.emplace_back(auto_format_name);
        const std::vector<std::string_view> choices(names.begin(), names.end());
        spec.format = reader.to_choice(*format, choices);
    }
    const bool matrix_free = spec.format != auto_format_name && find_operator(spec.format).matrix_free();
    if (spec.discretisation == DiscretisationKind::fv && matrix_free)
        reader.fail(*find_entry(entries, "format"), "format " + spec.format + " is matrix-free (built from "
                    "finite elements); finite volumes take an assembled format");
    if (spec.matrix && matrix_free)
        reader.fail(*find_entry(entries, "format"), "format " + spec.format + " is matrix-free: it needs a "
                    "mesh's elements; a matrix case takes an assembled format");
    if (const CaseValue* iterations = find_entry(entries, "auto_iterations")) {
        if (spec.format != auto_format_name)
            reader.fail(*iterations, "only used with format: auto (the iterations its choice counts "
                                     "conversions against)");
        spec.auto_iterations = reader.to_int(*iterations, 1);
    }
}

/// format_options and reorder (the assembled formats only).
void read_format_settings(const CaseReader& reader, const std::vector<CaseValue>& entries, CaseSpec& spec,
                          json& resolved)
{
    spec.format_options =
        read_format_options(reader, section_of(entries, "format_options"), resolved["format_options"]);
    if (const CaseValue* reorder = find_entry(entries, "reorder")) {
        spec.format_options.set_reordering(reader.to_enum(*reorder, reordering_names));
        if (spec.format_options.reordering() != Reordering::none && spec.format != auto_format_name &&
            find_operator(spec.format).matrix_free())
            reader.fail(*reorder, "reorder applies to the assembled formats; format " + spec.format +
                                      " is matrix-free (it keeps the mesh's numbering)");
    }
}

/// solver, fv, precision, output and backend; finite volumes refuse a preconditioner that
/// needs a hierarchy of Lagrange spaces.
void read_run_settings(const CaseReader& reader, const std::vector<CaseValue>& entries, CaseSpec& spec,
                       json& resolved)
{
    const bool fv = spec.discretisation == DiscretisationKind::fv;
    spec.solver = read_solver(reader, section_of(entries, "solver"), resolved["solver"]);
    if (fv) spec.fv = read_fv(reader, section_of(entries, "fv"), resolved["fv"], *spec.solver.preconditioner);
    if (const CaseValue* precision = find_entry(entries, "precision")) {
        spec.precision = reader.to_enum(*precision, precision_names);
    }
    spec.output = read_output(reader, section_of(entries, "output"), !spec.matrix, resolved["output"]);
    if (const CaseValue* backend = find_entry(entries, "backend")) {
        spec.backend = reader.to_enum(*backend, backend_choice_names);
    }
    if (fv && spec.solver.preconditioner->needs.space_hierarchy)
        reader.fail(section_of(entries, "solver"),
                    "preconditioner " + spec.solver.preconditioner->name +
                        " needs Lagrange elements of degree >= 2; finite volumes: use amg");
}

/// The resolved case's top-level choices.
void resolve_choices(const CaseSpec& spec, json& resolved)
{
    if (!spec.matrix) {
        resolved["degree"] = spec.degrees.size() == 1 ? json(spec.mesh.degree) : json(spec.degrees);
        resolved["discretisation"] = enum_name(discretisation_names, spec.discretisation);
    }
    resolved["format"] = spec.format;
    resolved["reorder"] = enum_name(reordering_names, spec.format_options.reordering());
    resolved["precision"] = precision_name(spec.precision);
    resolved["backend"] = backend_choice_name(spec.backend);
}

}  // namespace

CaseSpec parse_case_text(const std::string& text, const std::string& name,
                         const std::filesystem::path& base_dir,
                         const std::vector<std::string>& overrides)
{
    std::vector<CaseOverride> parsed;
    for (const std::string& override : overrides) {
        parsed.push_back(parse_override(override));
    }
    const YAML::Node root = load_case_root(text, name, parsed);
    const CaseReader reader(name, parsed);
    const CaseValue top{"", "", root, root.Mark()};
    const std::vector<CaseValue> entries = reader.entries(top, top_keys);

    CaseSpec spec;
    spec.name = fs::path(name).stem().string();
    json resolved = json::object();
    read_system_source(reader, entries, root, base_dir, spec, resolved);
    read_degree_and_problem(reader, entries, spec, resolved);
    if (!spec.matrix) read_cell_data_requests(reader, entries, spec, base_dir);
    read_discretisation(reader, entries, spec);
    read_format_choice(reader, entries, spec);
    read_format_settings(reader, entries, spec, resolved);
    read_run_settings(reader, entries, spec, resolved);
    resolve_choices(spec, resolved);
    spec.resolved = std::move(resolved);
    spec.key_locations = reader.locations();
    return spec;
}

std::string locate_case_error(const CaseSpec& spec, const std::string& message)
{
    std::size_t best = std::string::npos, best_length = 0;
    std::string location;
    for (const auto& [path, where] : spec.key_locations) {
        if (path.find('.') == std::string::npos) continue;  // a key path, not a lone word
        for (std::size_t at = message.find(path + ":"); at != std::string::npos; at = message.find(path + ":", at + 1)) {
            if (at != 0 && (at < 2 || message.compare(at - 2, 2, ": ") != 0)) continue;
            if (at < best || (at == best && path.size() > best_length)) {
                best = at, best_length = path.size(), location = where;
            }
            break;
        }
    }
    if (best == std::string::npos) return message;
    const std::string prefix = location + ": ";
    if (best >= prefix.size() && message.compare(best - prefix.size(), prefix.size(), prefix) == 0) return message;
    return message.substr(0, best) + prefix + message.substr(best);
}

void set_backend(CaseSpec& spec, BackendChoice backend)
{
    spec.backend = backend;
    spec.resolved["backend"] = backend_choice_name(backend);
}

std::vector<CaseSpec> expand_sweep(const CaseSpec& spec)
{
    std::vector<CaseSpec> runs;
    for (int degree : spec.degrees)
        for (int refine : spec.refines)
            for (std::size_t k = 0; k < spec.kappas.size(); ++k) {
                CaseSpec run = spec;
                run.degrees = {degree};
                run.mesh.degree = degree;
                run.mesh.refine = refine;
                if (spec.size_scales_with_degree) {
                    run.mesh.size = spec.mesh.size / spec.mesh.degree * degree;
                    run.resolved["mesh"]["size"] = run.mesh.size;
                }
                run.refines = {refine};
                run.resolved["degree"] = degree;
                run.resolved["mesh"]["refine"] = refine;
                run.problem.kappa = spec.kappas[k];
                run.kappas = {spec.kappas[k]};
                run.kappa_index = static_cast<int>(k);
                if (!spec.matrix && spec.kappas.size() > 1) run.resolved["problem"]["kappa"] = spec.kappas[k];
                runs.push_back(std::move(run));
            }
    return runs;
}

CaseSpec parse_case_file(const std::filesystem::path& path, const std::vector<std::string>& overrides)
{
    if (const std::string problem = not_a_regular_file(path); !problem.empty())
        throw CaseError("case file '" + path.string() + "' " + problem);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw CaseError("cannot read case file '" + path.string() + "'");
    }
    std::ostringstream text;
    text << in.rdbuf();
    CaseSpec spec = parse_case_text(text.str(), path.string(), path.parent_path(), overrides);
    spec.case_path = path;
    return spec;
}

}  // namespace gpufem
