#include "mesh/mesh_source.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <gmsh.h>
#include <spdlog/spdlog.h>

#include "linalg/file_kind.hpp"
#include "mesh/gmsh_cell_order.hpp"
#include "mesh/gmsh_extract.hpp"
#include "mesh/gmsh_mesh.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/gmsh_shapes.hpp"
#include "mesh/mesh_input_guard.hpp"
#include "mesh/mesh_size_guard.hpp"
#include "mesh/mesh_source_detail.hpp"

namespace gpufem {
namespace {

using namespace mesh_source_detail;

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

/// Refines with Gmsh (spec.gmsh_nodes only; gpufem refines every other mesh itself).
void gmsh_refinement(const MeshSpec& spec, const std::string& context)
{
    if (spec.gmsh_nodes) refine_mesh(spec.refine, context);
}

/// Gives the current model's mesh the order gmsh_cell_order chooses (`file_order` as there)
/// and extracts it, with the Gmsh time since `start` and the extraction's.
GmshMesh ordered_extract(const MeshSpec& spec, int file_order, const std::string& source, const std::string& context,
                         std::chrono::steady_clock::time_point start)
{
    const GmshCellOrder order = gmsh_cell_order(spec, file_order, context);
    const auto ordering = std::chrono::steady_clock::now();
    set_mesh_order(order.order, source);
    spdlog::debug("{}: Gmsh's cells of order {} in {:.3f} s", context, order.order, seconds_since(ordering));
    const double gmsh = seconds_since(start);
    const auto extraction = std::chrono::steady_clock::now();
    GmshMesh out{extract_mesh(source, order.order, geometry_point_refinements(spec)), order.from_degree};
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
        const double script = seconds_since(start);
        const int dim = gmsh::model::getDimension();
        if (dim < 2)
            throw MeshSourceError(context + " defines no surface or volume to mesh");
        if (spec.size > 0.0) gmsh::option::setNumber("Mesh.MeshSizeMax", spec.size);
        const auto meshing = std::chrono::steady_clock::now();
        run_gmsh_step(context + ", meshing", [&] { gmsh::model::mesh::generate(dim); }, GmshLog::last_error);
        spdlog::debug("{}: read by Gmsh in {:.3f} s, meshed in {:.3f} s on {} threads", context, script,
                      seconds_since(meshing), gmsh_meshing_threads(spec.gmsh_threads, session));
        gmsh_refinement(spec, context);
        return ordered_extract(spec, 0, source, context, start);
    } catch (...) {
        rethrow_as_mesh_error(context);
    }
}

/// Builds, meshes and refines a built-in shape (generated ones on `device`, their order the
/// degree gpufem numbered, not Gmsh's).
GmshMesh load_shape(const MeshSpec& spec, const ExecPtr& device)
{
    const ShapeRequest request = resolve_shape(spec.shape, spec.elements, spec.size);
    if (is_generated_shape(request.shape)) return {load_generated_mesh(spec, device), false};
    const std::string source = checked_shape_source(spec, request);
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

Mesh load_mesh(const MeshSpec& spec, const ExecPtr& device)
{
    if (!mesh_needs_gmsh(spec)) return load_generated_mesh(spec, device);
    return finish_gmsh_mesh(load_gmsh_mesh(spec), spec, device);
}

}  // namespace gpufem
