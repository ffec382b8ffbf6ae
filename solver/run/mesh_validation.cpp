#include "solver/run/mesh_validation.hpp"

#include <array>
#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_parts.hpp"
#include "mesh/shapes/cell_shape.hpp"
#include "mesh/stage_laps.hpp"
#include "solver/run/mesh_check_record.hpp"

namespace gpufem {
namespace {

/// The nodes of the facets of the problem's Dirichlet groups (groups the mesh lacks are left
/// to the boundary conditions' own error) and the conditions' names.
std::vector<char> dirichlet_nodes(const CaseSpec& spec, const Mesh& mesh, std::string& names)
{
    std::vector<char> marked(static_cast<std::size_t>(mesh.num_nodes()), 0);
    for (const BoundaryCondition& bc : spec.problem.dirichlet) {
        names += (names.empty() ? "" : ", ") + bc.group;
        const BoundaryFacets* facets = mesh.find_boundary(bc.group);
        if (!facets) continue;
        for (const index_type v : facets->connectivity)
            if (v >= 0) marked[static_cast<std::size_t>(v)] = 1;
    }
    return marked;
}

/// Whether each part has a cell reached by a Dirichlet node (faces: by a boundary face whose
/// nodes all are).
std::vector<char> reached_parts(const Mesh& mesh, const MeshParts& parts, const std::vector<char>& marked,
                                const FaceSlots* faces)
{
    std::vector<char> reached(static_cast<std::size_t>(parts.count), 0);
    if (faces) {
        const long long slots = static_cast<long long>(faces->neighbour.size());
        for (long long s = 0; s < slots; ++s) {
            if (!faces->is_boundary(s)) continue;
            index_type nodes[4];
            const int n = faces->face_nodes(s, nodes);
            bool all = true;
            for (int k = 0; k < n; ++k) all = all && marked[static_cast<std::size_t>(nodes[k])];
            if (all) reached[static_cast<std::size_t>(parts.of_cell[static_cast<std::size_t>(s / faces->faces_per_cell)])] = 1;
        }
        return reached;
    }
    const long long cells = mesh.num_cells();
    for (long long c = 0; c < cells; ++c) {
        const index_type* row = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
        for (int k = 0; k < mesh.nodes_per_cell && row[k] >= 0; ++k)
            if (marked[static_cast<std::size_t>(row[k])]) reached[static_cast<std::size_t>(parts.of_cell[static_cast<std::size_t>(c)])] = 1;
    }
    return reached;
}

/// What to try when a part is floating in a 3D mesh Gmsh made from a .geo on several threads:
/// its parallel mesher now and then leaves a cell joined to the rest by corners or edges only.
std::string gmsh_threads_hint(const CaseSpec& spec, const Mesh& mesh)
{
    if (spec.mesh.kind != MeshSpec::Kind::geo || spec.mesh.gmsh_threads == 1 || mesh.dim != 3) return "";
    return "; Gmsh meshed it on several threads, which now and then leaves such a cell: mesh.gmsh_threads: 1 "
           "meshes it on one";
}

}  // namespace

index_type check_parts_reach_dirichlet(const CaseSpec& spec, const Mesh& mesh, const FaceSlots* faces)
{
    const MeshParts parts = faces ? parts_through_faces(mesh, *faces) : parts_through_nodes(mesh);
    if (parts.count <= 1) return parts.count;
    if (faces && spec.discretisation != DiscretisationKind::fv)  // finite elements: joined through nodes
        return check_parts_reach_dirichlet(spec, mesh, nullptr);
    const char* joined = faces ? "faces" : "nodes";
    if (spec.problem.dirichlet.empty())
        throw MeshSourceError(fmt::format(
            "mesh {}: the domain falls into {} parts that share no {}, and the problem has no Dirichlet "
            "condition: each part's solution is fixed only up to its own constant (the second is a {}); "
            "give every part a Dirichlet condition, or solve the parts separately",
            mesh.source, parts.count, joined, part_text(mesh, parts, 1)));
    std::string names;
    const std::vector<char> reached = reached_parts(mesh, parts, dirichlet_nodes(spec, mesh, names), faces);
    for (index_type p = 0; p < parts.count; ++p)
        if (!reached[static_cast<std::size_t>(p)])
            throw MeshSourceError(fmt::format(
                "mesh {}: a floating {}: it shares no {} with the rest of the domain and no Dirichlet "
                "condition (problem.dirichlet: {}) reaches it, so its solution is fixed only up to a "
                "constant and the solver would stagnate or break down; give it a Dirichlet condition, "
                "or join it to the domain ({} parts in all){}",
                mesh.source, part_text(mesh, parts, p), joined, names, parts.count, gmsh_threads_hint(spec, mesh)));
    return parts.count;
}

namespace {

/// The refined mesh's face counts, from the coarse mesh's boundary faces (each split into
/// four in 3D, each edge into two in 2D, `refine` times) and its own cells' faces (each
/// interior face held by two cells, as the coarse mesh's conformity makes it).
ConformityReport refined_conformity(ConformityReport coarse, const Mesh& mesh, int refine)
{
    for (int r = 0; r < refine; ++r) coarse.boundary_faces *= mesh.dim == 3 ? 4 : 2;
    std::array<long long, element_type_count> of_type{};
    if (mesh.cell_types.empty()) {
        of_type[static_cast<std::size_t>(mesh.cell_type)] = mesh.num_cells();
    } else {
        for (const std::uint8_t t : mesh.cell_types) ++of_type[t];
    }
    long long cell_faces = 0;
    for (int t = 0; t < element_type_count; ++t) {
        cell_faces += of_type[static_cast<std::size_t>(t)] * cell_shape(static_cast<ElementType>(t)).side_count();
    }
    coarse.interior_faces = (cell_faces - coarse.boundary_faces) / 2;
    return coarse;
}

/// The conformity and parts checks of a mesh (face matching where the face adjacency takes
/// it, else parts through nodes), their stages timed into laps and the debug log.
CoarseMeshVerdict conformity_and_parts(const CaseSpec& spec, const Mesh& mesh, const ExecPtr& exec, StageLaps& laps)
{
    CoarseMeshVerdict out;
    if (face_adjacency_supported(mesh)) {
        const FaceSlots faces = face_slots(mesh, exec ? exec : Executor::create_cpu());
        laps.lap("face matching");
        out.conformity = check_mesh_conformity(mesh, faces);
        laps.lap("conformity");
        // Through faces first: one part there is one part through nodes too.
        out.parts = check_parts_reach_dirichlet(spec, mesh, &faces);
        laps.lap("parts");
        spdlog::debug("mesh checks' times: {}", laps.text);
    } else {
        spdlog::debug("mesh: conformity not checked (no face adjacency for {}, order {})", mesh.describe_cells(),
                      mesh.degree);
        out.parts = check_parts_reach_dirichlet(spec, mesh, nullptr);
    }
    return out;
}

/// Runs the checks of validate_case_mesh on a mesh Gmsh made or read (coarse: the verdict on
/// the mesh it was refined from, or null).
MeshValidation check_gmsh_mesh(const CaseSpec& spec, const Mesh& mesh, const ExecPtr& exec,
                               const QualityLimits& limits, const CoarseMeshVerdict* coarse)
{
    MeshValidation out;
    StageLaps laps;
    check_mesh_coordinates(mesh);
    out.quality = check_cell_quality(mesh, limits);
    laps.lap("coordinates and quality");
    if (coarse) {
        out.conformity = refined_conformity(coarse->conformity, mesh, spec.mesh.refine);
        out.parts = coarse->parts;
        spdlog::debug("mesh checks' times: {} (conformity and parts on the mesh before its refinement: {:.3f} s)",
                      laps.text, coarse->seconds);
        return out;
    }
    const CoarseMeshVerdict own = conformity_and_parts(spec, mesh, exec, laps);
    out.conformity = own.conformity;
    out.parts = own.parts;
    return out;
}

/// What a verdict kept beside the cache file is kept for: the case's refinement, degree and
/// quality bounds.
CheckedMeshSettings checked_settings(const CaseSpec& spec)
{
    return {spec.mesh.refine, spec.mesh.degree, {spec.mesh.min_quality, spec.mesh.warn_quality}};
}

/// Whether `cache` read or wrote a cache file beside which the checks' verdict can be kept.
bool has_cache_file(const MeshCacheStatus& cache)
{
    return !cache.file.empty() &&
           (cache.outcome == MeshCacheStatus::Outcome::hit || cache.outcome == MeshCacheStatus::Outcome::stored);
}

}  // namespace

bool coarse_checks_needed(const CaseSpec& spec, const MeshCacheStatus& cache)
{
    return !(cache.outcome == MeshCacheStatus::Outcome::hit && has_check_record(cache.file, checked_settings(spec)));
}

CoarseMeshVerdict check_coarse_mesh(const CaseSpec& spec, const Mesh& coarse, const ExecPtr& exec)
{
    if (coarse.num_cells() == 0) return {};
    StageLaps laps;
    const auto start = laps.last;
    CoarseMeshVerdict out = conformity_and_parts(spec, coarse, exec, laps);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

MeshValidation validate_case_mesh(const CaseSpec& spec, const Mesh& mesh, const ExecPtr& exec,
                                  const MeshCacheStatus& cache, const CoarseMeshVerdict* coarse)
{
    const auto start = std::chrono::steady_clock::now();
    if (mesh.num_cells() == 0) return {};
    if (spec.mesh.kind == MeshSpec::Kind::shape) {
        // gpufem's own grids (and their uniform refinements) are conforming, connected and of
        // fixed quality by construction: checking millions of their cells would only cost time.
        spdlog::debug("mesh checks: skipped for a shape gpufem generated");
        return {};
    }
    const CheckedMeshSettings settings = checked_settings(spec);
    const QualityLimits& limits = settings.limits;
    std::optional<MeshValidation> kept;
    if (cache.outcome == MeshCacheStatus::Outcome::hit) kept = read_check_record(cache.file, mesh, settings);
    if (cache.outcome == MeshCacheStatus::Outcome::stored) remove_check_record(cache.file);  // another mesh's
    MeshValidation out = kept ? *kept : check_gmsh_mesh(spec, mesh, exec, limits, coarse);
    if (!kept && has_cache_file(cache) && !write_check_record(cache.file, mesh, settings, out))
        spdlog::debug("mesh checks: verdict not kept beside {}", cache.file);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (out.quality.poor > 0)
        spdlog::warn("mesh: {} cells have a quality below {:.0e} (area or volume against an ideal cell's with "
                     "the same longest edge), the worst {:.3g} (cell {}); such cells slow the solver and "
                     "spoil the accuracy (mesh.warn_quality sets the bound)",
                     out.quality.poor, limits.warn, out.quality.worst, out.quality.worst_cell);
    spdlog::info("mesh checks: {}, worst cell quality {:.3g}, {} part{} ({:.3f} s{}{})",
                 out.conformity.checked ? fmt::format("conforming ({} interior, {} boundary faces)",
                                                      out.conformity.interior_faces, out.conformity.boundary_faces)
                                        : std::string("conformity not checked"),
                 out.quality.worst, out.parts, out.parts == 1 ? "" : "s", out.seconds,
                 out.from_record ? ", as found by an earlier run on the cached mesh" : "",
                 coarse && !kept ? fmt::format("; conformity and parts checked before the refinement, {:.3f} s",
                                               coarse->seconds)
                                 : std::string());
    return out;
}

}  // namespace gpufem
