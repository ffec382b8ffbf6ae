#include "mesh/mesh_source.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "mesh/gmsh_session.hpp"
#include "mesh/kernel_shapes.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_size_guard.hpp"
#include "mesh/mesh_source_detail.hpp"
#include "mesh/structured_shapes.hpp"

namespace gpufem {
namespace {

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

}  // namespace

namespace mesh_source_detail {

void check_refine(int refine, const std::string& context)
{
    if (refine < 0 || refine > 10)
        throw MeshSourceError(context + ": refine must be between 0 and 10 (got " +
                              std::to_string(refine) + ")");
}

void check_order(int order, const std::string& context)
{
    if (order < 1 || order > max_element_degree)
        throw MeshSourceError(context + ": element order must be between 1 and " +
                              std::to_string(max_element_degree) + " (got " + std::to_string(order) + ")");
}

std::string size_text(double size)
{
    std::ostringstream text;
    text << "h=" << size;
    return text.str();
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

}  // namespace mesh_source_detail


using namespace mesh_source_detail;

Mesh load_generated_mesh(const MeshSpec& spec, const ExecPtr& device)
{
    const ShapeRequest request = resolve_shape(spec.shape, spec.elements, spec.size);
    const std::string source = checked_shape_source(spec, request);
    if (!is_generated_shape(request.shape))
        throw std::logic_error("load_generated_mesh: shape '" + request.shape + "' is meshed by Gmsh");
    const auto start = std::chrono::steady_clock::now();
    Mesh mesh = generate_shape_mesh(request, spec.refine, spec.degree, source, device);
    mesh.build_times.gpufem = seconds_since(start);
    return mesh;
}

std::optional<MeshCounts> predicted_mesh_counts(const MeshSpec& spec)
{
    if (spec.kind != MeshSpec::Kind::shape || !is_generated_shape(spec.shape)) return std::nullopt;
    const ShapeRequest request = resolve_shape(spec.shape, spec.elements, spec.size);
    return shape_mesh_counts(request, spec.refine, spec.degree, checked_shape_source(spec, request));
}

std::vector<std::size_t> generated_mesh_host_bytes(const MeshSpec& spec)
{
    std::optional<MeshCounts> counts;
    try {
        counts = predicted_mesh_counts(spec);
    } catch (const MeshSourceError&) {  // the mesh phase reports it
        return {};
    }
    if (!counts) return {};
    // As generate_shape_mesh sizes them: 3 coordinates a node, nodes_per_cell indices and one
    // tag a cell.
    const auto nodes = static_cast<std::size_t>(counts->nodes), cells = static_cast<std::size_t>(counts->cells);
    return {3 * nodes * sizeof(double), cells * static_cast<std::size_t>(counts->nodes_per_cell) * sizeof(index_type),
            cells * sizeof(int)};
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

int geometry_point_refinements(const MeshSpec& spec)
{
    const bool wanted = spec.snap_to_geometry && !spec.gmsh_nodes && spec.kind != MeshSpec::Kind::file;
    return wanted ? std::max(spec.refine, 0) : 0;
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
    if (spec.gmsh_nodes && coarse.curved_cells)
        throw MeshSourceError("mesh '" + coarse.source + "' of " + coarse.describe_cells() +
                              ": gmsh_nodes gives prisms, pyramids and meshes of several cell types order 1 only "
                              "(leave gmsh_nodes out: gpufem places their nodes on Gmsh's curved cells of order 2)");
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
        // Curved maps: the children's order-2 rows and their parents' order-4 lattice.
        const double maps = coarse.curved_cells ? cells * lagrange_node_count(coarse.cell_type, 2) * 4.0 +
                                                      static_cast<double>(coarse.num_nodes()) * split * std::pow(2.0, dim) * 24.0
                                                : 0.0;
        return MeshEstimate{cells, nodes, entries, nodes * 3 * sizeof(double) + entries * 4 + cells * 4 + maps};
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

}  // namespace gpufem
