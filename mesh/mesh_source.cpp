#include "mesh/mesh_source.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include <gmsh.h>

#include "linalg/file_kind.hpp"
#include "linalg/host_threads.hpp"
#include "mesh/kernel_shapes.hpp"
#include "mesh/gmsh_cell_order.hpp"
#include "mesh/gmsh_extract.hpp"
#include "mesh/gmsh_mesh.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/gmsh_shapes.hpp"
#include "mesh/mesh_input_guard.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_size_guard.hpp"
#include "mesh/structured_shapes.hpp"

namespace gpufem {
namespace {

/// Throws unless `path` names a readable regular file; `what` is "mesh file" or "geometry file".
void check_readable(const std::string& path, const std::string& what)
{
    namespace fs = std::filesystem;
    if (path.empty()) throw MeshSourceError(what + ": no path given");
    if (const std::string problem = not_a_regular_file(path); !problem.empty())
        throw MeshSourceError(what + " '" + path + "' " + problem);
    if (!std::ifstream(path)) throw MeshSourceError(what + " '" + path + "' cannot be read");
    const std::string extension = std::filesystem::path(path).extension().string();
    if (extension == ".gz" || extension == ".bz2" || extension == ".xz" || extension == ".zip")
        throw MeshSourceError(what + " '" + path + "' is compressed (" + extension +
                              "); gpufem reads Gmsh files uncompressed: decompress it first");
}

/// Throws unless the refinement count is sensible.
void check_refine(int refine, const std::string& context)
{
    if (refine < 0 || refine > 10)
        throw MeshSourceError(context + ": refine must be between 0 and 10 (got " +
                              std::to_string(refine) + ")");
}

/// Host bytes Gmsh and gpufem hold per cell of a mesh Gmsh refines (MeshSpec::gmsh_nodes, the
/// tests' reference: Gmsh's element and node objects, its refinement's temporaries, our
/// extracted arrays; measured order of magnitude).
constexpr double bytes_per_refined_cell = 600;

/// Throws MeshSourceError when `refine` refinements of the current model's mesh would exceed
/// 32-bit cell indices or the host's physical memory, naming the estimate and the largest
/// refinement that fits.
void check_refine_size(int refine, const std::string& context)
{
    if (refine == 0) return;
    const int dim = gmsh::model::getDimension();
    std::vector<int> types;
    std::vector<std::vector<std::size_t>> tags, nodes;
    gmsh::model::mesh::getElements(types, tags, nodes, dim);
    double cells = 0;
    for (const auto& t : tags) cells += static_cast<double>(t.size());
    check_mesh_estimate(context, refine, [&](int r) {
        const double refined = cells * std::pow(2.0, dim * r);
        return MeshEstimate{refined, 0, 0, refined * bytes_per_refined_cell};
    });
}

/// Splits every element of the current model's mesh `refine` times (after check_refine_size).
void refine_mesh(int refine, const std::string& context)
{
    check_refine_size(refine, context);
    for (int i = 0; i < refine; ++i)
        run_gmsh_step(context + ", refinement " + std::to_string(i + 1),
                      [] { gmsh::model::mesh::refine(); });
}

/// Throws unless the element order is one gpufem handles (1..8; each shape's own limit is
/// check_degree_for_cells').
void check_order(int order, const std::string& context)
{
    if (order < 1 || order > max_element_degree)
        throw MeshSourceError(context + ": element order must be between 1 and " +
                              std::to_string(max_element_degree) + " (got " + std::to_string(order) + ")");
}

/// Refines with Gmsh (spec.gmsh_nodes only; gpufem refines every other mesh itself).
void gmsh_refinement(const MeshSpec& spec, const std::string& context)
{
    if (spec.gmsh_nodes) refine_mesh(spec.refine, context);
}

/// `name` followed by its details in parentheses, "a.geo (h=0.2, refine 1, order 3)"; just
/// `name` when there are none (for Mesh::source).
std::string described(const std::string& name, const std::vector<std::string>& details)
{
    std::string text = name;
    for (std::size_t i = 0; i < details.size(); ++i)
        text += (i == 0 ? " (" : ", ") + details[i];
    return details.empty() ? text : text + ")";
}

/// Appends "order k" to a mesh's details for orders above 1.
void add_order_detail(int order, std::vector<std::string>& details)
{
    if (order > 1) details.push_back("order " + std::to_string(order));
}

/// "h=0.1" with the shortest decimal form.
std::string size_text(double size)
{
    std::ostringstream text;
    text << "h=" << size;
    return text.str();
}

/// Seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Gives the current model's mesh the order gmsh_cell_order chooses (`file_order` as there)
/// and extracts it, with the Gmsh time since `start` and the extraction's.
GmshMesh ordered_extract(const MeshSpec& spec, int file_order, const std::string& source, const std::string& context,
                         std::chrono::steady_clock::time_point start)
{
    const GmshCellOrder order = gmsh_cell_order(spec, file_order, context);
    set_mesh_order(order.order, source);
    const double gmsh = seconds_since(start);
    const auto extraction = std::chrono::steady_clock::now();
    GmshMesh out{extract_mesh(source, order.order), order.from_degree};
    out.mesh.build_times = {gmsh, seconds_since(extraction)};
    return out;
}

/// Has Gmsh read the input as `read` says (Gmsh merges a FILE.opt beside it), as one step.
void open_in_gmsh(const MeshSpec& spec, const GmshReadOptions& read, const std::string& context)
{
    run_gmsh_step(context, [&] {
        gmsh::open(read.open_path.empty() ? spec.path : read.open_path);
    });
}

/// Reads a .msh file (any MSH version Gmsh reads), optionally refined.
GmshMesh load_file(const MeshSpec& spec, const GmshReadOptions& read)
{
    const std::string context = "mesh file '" + spec.path + "'";
    check_readable(spec.path, "mesh file");
    check_refine(spec.refine, context);
    check_order(spec.degree, context);
    if (std::filesystem::path(spec.path).extension() == ".geo")
        throw MeshSourceError(context + " is a Gmsh geometry (.geo): give it as a geometry "
                                        "source to have it meshed");
    if (spec.size != 0.0)
        throw MeshSourceError(context + ": a mesh size (" + size_text(spec.size) +
                              ") cannot be applied to a mesh file; use refine, or a .geo file");
    if (!mesh_input_guard_bypassed()) {
        check_msh_header(spec.path);
        check_sidecar_options(spec.path);
    }
    GmshSession session;
    const auto start = std::chrono::steady_clock::now();
    try {
        open_in_gmsh(spec, read, context);
        gmsh_refinement(spec, context);
        const std::string source = gmsh_mesh_source(spec);
        return ordered_extract(spec, mesh_cell_order(source), source, context, start);
    } catch (...) {
        rethrow_as_mesh_error(context);
    }
}

/// Gmsh's parallel Delaunay (HXT), gpufem's default 3D algorithm.
constexpr double gmsh_hxt_algorithm_3d = 10;

/// Lets Gmsh mesh on spec.gmsh_threads threads (0: the host's, as the session found them),
/// volumes with HXT; called before the script is read, so that a Mesh.Algorithm3D the script
/// sets wins.
void use_parallel_meshing(const MeshSpec& spec, const GmshSession& session)
{
    // HXT on several threads inserts points in an order that varies from run to run (the
    // unit cube at h = 0.08: 9,571-9,703 tetrahedra on 2 threads, 9,615 every time on 1).
    const int threads = gmsh_meshing_threads(spec.gmsh_threads, session);
    gmsh::option::setNumber("General.NumThreads", threads);
    gmsh::option::setNumber("Mesh.Algorithm3D", gmsh_hxt_algorithm_3d);
}

/// Meshes a .geo file in its own dimension; `size` caps the element size (Mesh.MeshSizeMax,
/// finer sizes set in the file are kept), then refines.
GmshMesh load_geo(const MeshSpec& spec, const GmshReadOptions& read)
{
    const std::string context = "geometry file '" + spec.path + "'";
    check_readable(spec.path, "geometry file");
    check_refine(spec.refine, context);
    check_order(spec.degree, context);
    if (spec.size < 0.0 || !std::isfinite(spec.size))
        throw MeshSourceError(context + ": the mesh size must be positive (got " +
                              size_text(spec.size) + ")");
    if (!spec.allow_commands && !mesh_input_guard_bypassed()) {
        check_geo_commands(spec.path);  // with its FILE.opt and the files it reads
    }
    const std::string source = gmsh_mesh_source(spec);
    GmshSession session;
    const auto start = std::chrono::steady_clock::now();
    try {
        use_parallel_meshing(spec, session);
        open_in_gmsh(spec, read, context);
        if (read.script_read) read.script_read();
        const int dim = gmsh::model::getDimension();
        if (dim < 2)
            throw MeshSourceError(context + " defines no surface or volume to mesh");
        if (spec.size > 0.0) gmsh::option::setNumber("Mesh.MeshSizeMax", spec.size);
        run_gmsh_step(context + ", meshing", [&] { gmsh::model::mesh::generate(dim); }, GmshLog::last_error);
        gmsh_refinement(spec, context);
        return ordered_extract(spec, 0, source, context, start);
    } catch (...) {
        rethrow_as_mesh_error(context);
    }
}

/// How messages name a built-in shape: "shape unit_cube (hexahedron, h=0.1, refine 0)"; the
/// refinement and order are checked.
std::string checked_shape_source(const MeshSpec& spec, const ShapeRequest& request)
{
    std::vector<std::string> details = {element_type_name(request.elements),
                                        size_text(request.size),
                                        "refine " + std::to_string(spec.refine)};
    add_order_detail(spec.degree, details);
    const std::string source = described("shape " + request.shape, details);
    check_refine(spec.refine, source);
    check_order(spec.degree, source);
    if (spec.degree > max_lagrange_degree(request.elements))
        throw MeshSourceError(source + ": " + element_type_plural(request.elements) + " take degrees 1 to " +
                              std::to_string(max_lagrange_degree(request.elements)) +
                              " (degrees 5 to 8 are for quadrilaterals and hexahedra)");
    return source;
}

/// Builds, meshes and refines a built-in shape (generated ones also on `device`, their order
/// the degree gpufem numbered, not Gmsh's).
GmshMesh load_shape(const MeshSpec& spec, const ExecPtr& device)
{
    const ShapeRequest request = resolve_shape(spec.shape, spec.elements, spec.size);
    const std::string source = checked_shape_source(spec, request);
    if (is_generated_shape(request.shape)) {
        const auto start = std::chrono::steady_clock::now();
        Mesh mesh = generate_shape_mesh(request, spec.refine, spec.degree, source, device);
        mesh.build_times.gpufem = seconds_since(start);
        return {std::move(mesh), false};
    }
    GmshSession session;
    const auto start = std::chrono::steady_clock::now();
    try {
        mesh_shape(request, source);
        gmsh_refinement(spec, source);
        return ordered_extract(spec, 0, source, source, start);
    } catch (...) {
        rethrow_as_mesh_error(source);
    }
}

}  // namespace

std::optional<MeshCounts> predicted_mesh_counts(const MeshSpec& spec)
{
    if (spec.kind != MeshSpec::Kind::shape || !is_generated_shape(spec.shape)) return std::nullopt;
    const ShapeRequest request = resolve_shape(spec.shape, spec.elements, spec.size);
    return shape_mesh_counts(request, spec.refine, spec.degree, checked_shape_source(spec, request));
}

std::optional<ShapeGrid> box_shape_grid(const MeshSpec& spec)
{
    if (spec.kind != MeshSpec::Kind::shape || !is_generated_shape(spec.shape)) return std::nullopt;
    const ShapeRequest request = resolve_shape(spec.shape, spec.elements, spec.size);
    if (box_grid(request.shape, 1, 1).notch) return std::nullopt;
    return make_shape_grid(request, spec.refine, spec.degree, checked_shape_source(spec, request));
}

MeshCounts mesh_counts(const Mesh& mesh)
{
    MeshCounts counts;
    counts.dim = mesh.dim;
    counts.cell_type = mesh.cell_type;
    counts.degree = mesh.degree;
    counts.nodes = static_cast<double>(mesh.num_nodes());
    counts.cells = static_cast<double>(mesh.num_cells());
    counts.nodes_per_cell = mesh.nodes_per_cell;
    counts.mixed = mesh.is_mixed();
    counts.faces_per_cell = max_faces_per_cell(mesh);
    for (const BoundaryFacets& facets : mesh.boundaries)
        counts.facet_entries += static_cast<double>(facets.connectivity.size());
    counts.on_device = mesh.device != nullptr;
    counts.refined = mesh.refined_from != nullptr;
    return counts;
}

bool mesh_needs_gmsh(const MeshSpec& spec)
{
    return spec.kind != MeshSpec::Kind::shape || !is_generated_shape(spec.shape);
}

GmshMesh load_gmsh_mesh_and_order(const MeshSpec& spec, const GmshReadOptions& read)
{
    switch (spec.kind) {
    case MeshSpec::Kind::file: return load_file(spec, read);
    case MeshSpec::Kind::geo: return load_geo(spec, read);
    case MeshSpec::Kind::shape: return load_shape(spec, nullptr);
    }
    throw MeshSourceError("load_mesh: unknown mesh source kind");
}

Mesh load_gmsh_mesh(const MeshSpec& spec, const GmshReadOptions& read)
{
    return load_gmsh_mesh_and_order(spec, read).mesh;
}

std::string gmsh_mesh_source(const MeshSpec& spec)
{
    std::vector<std::string> details;
    if (spec.kind == MeshSpec::Kind::geo) {
        if (spec.size > 0.0) details.push_back(size_text(spec.size));
        if (spec.size > 0.0 || spec.refine > 0) details.push_back("refine " + std::to_string(spec.refine));
    }
    add_order_detail(spec.degree, details);
    return described(spec.path, details);
}

void check_degree_for_cells(const Mesh& mesh, int degree)
{
    for (int t = 0; t < element_type_count; ++t) {
        const auto type = static_cast<ElementType>(t);
        if (mesh.has_cells_of(type) && degree > max_lagrange_degree(type))
            throw MeshSourceError("mesh '" + mesh.source + "': its cells (" + mesh.describe_cells() + ") take degrees 1 to " +
                                  std::to_string(max_lagrange_degree(type)) + " (" + element_type_plural(type) +
                                  (type == ElementType::pyramid ? "; VTK has no Lagrange pyramid to write higher ones"
                                                                : "; degrees 5 to 8 are for quadrilaterals and hexahedra") +
                                  "), and the degree is " + std::to_string(degree));
    }
}

Mesh finish_gmsh_mesh(Mesh coarse, const MeshSpec& spec, const ExecPtr& exec)
{
    resolve_cell_fields(coarse, spec.cell_fields);
    if (spec.gmsh_nodes) return coarse;
    // Checked here too: a mesh from the cache did not pass load_gmsh_mesh's checks for this spec.
    check_refine(spec.refine, "mesh '" + coarse.source + "'");
    check_order(spec.degree, "mesh '" + coarse.source + "'");
    check_degree_for_cells(coarse, spec.degree);
    const auto start = std::chrono::steady_clock::now();
    const ExecPtr on = exec ? exec : Executor::create_cpu();
    const int g = coarse.degree;
    const double dim = coarse.dim;
    // A pyramid splits into 10 cells (6 pyramids, 4 tetrahedra), the other shapes into 2^dim.
    const bool pyramids = coarse.has_cells_of(ElementType::pyramid);
    check_mesh_estimate(coarse.source, spec.refine, [&](int r) {
        const double split = std::pow(pyramids ? 10.0 : std::pow(2.0, dim), r);
        const double cells = static_cast<double>(coarse.num_cells()) * split;
        const double nodes = static_cast<double>(coarse.num_nodes()) * split *
                             std::pow(static_cast<double>(spec.degree) / g, dim);
        const double entries = cells * lagrange_node_count(coarse.cell_type, spec.degree);
        return MeshEstimate{cells, nodes, entries, nodes * 3 * sizeof(double) + entries * 4 + cells * 4};
    });
    Mesh mesh = refine_and_number(std::move(coarse), spec.refine, spec.degree, on);
    if (on->is_cuda()) on->synchronize();
    mesh.build_times.refinement = seconds_since(start);
    return mesh;
}

MeshSpec mesh_spec_for_path(const std::string& path)
{
    MeshSpec spec;
    spec.kind = std::filesystem::path(path).extension() == ".geo" ? MeshSpec::Kind::geo : MeshSpec::Kind::file;
    spec.path = path;
    spec.file_order = spec.kind == MeshSpec::Kind::file;
    return spec;
}

Mesh load_mesh(const MeshSpec& spec, const ExecPtr& device)
{
    if (!mesh_needs_gmsh(spec)) return load_shape(spec, device).mesh;
    return finish_gmsh_mesh(load_gmsh_mesh(spec), spec, device);
}

}  // namespace gpufem
