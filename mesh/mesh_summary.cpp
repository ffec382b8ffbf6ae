#include "mesh/mesh_summary.hpp"

#include <algorithm>
#include <limits>

#include "mesh/cell_description.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"

namespace gpufem {
namespace {

/// The cells of each type present, in ElementType order.
std::vector<CellTypeCount> count_cell_types(const Mesh& mesh)
{
    std::array<long long, element_type_count> count{};
    if (!mesh.is_mixed()) {
        count[static_cast<std::size_t>(mesh.cell_type)] = mesh.num_cells();
    } else {
        for (const std::uint8_t type : mesh.cell_types) ++count[type];
    }
    std::vector<CellTypeCount> out;
    for (int t = 0; t < element_type_count; ++t)
        if (count[static_cast<std::size_t>(t)] > 0) out.push_back({static_cast<ElementType>(t), count[static_cast<std::size_t>(t)]});
    return out;
}

/// The smallest and largest coordinates of the nodes (zeros for a mesh without nodes).
void bounding_box(const Mesh& mesh, std::array<double, 3>& lo, std::array<double, 3>& hi)
{
    const long long n = mesh.num_nodes();
    lo = hi = {0, 0, 0};
    if (n == 0) return;
    const double* x = mesh.node_coordinates().data();
    for (int d = 0; d < 3; ++d) {
        double low = std::numeric_limits<double>::infinity(), high = -low;
#pragma omp parallel for reduction(min : low) reduction(max : high) schedule(static)
        for (long long i = 0; i < n; ++i) {
            low = std::min(low, x[3 * i + d]);
            high = std::max(high, x[3 * i + d]);
        }
        lo[static_cast<std::size_t>(d)] = low;
        hi[static_cast<std::size_t>(d)] = high;
    }
}

/// The cells of each region of mesh.subdomains (in that order), and last the cells of none.
std::vector<long long> region_cell_counts(const Mesh& mesh)
{
    const std::size_t regions = mesh.subdomains.size();
    std::vector<long long> count(regions + 1, 0);
    const long long n = static_cast<long long>(mesh.cell_group.size());
#pragma omp parallel
    {
        std::vector<long long> mine(regions + 1, 0);
        std::size_t last = 0;  // cells of one region usually follow each other
#pragma omp for schedule(static) nowait
        for (long long c = 0; c < n; ++c) {
            const int tag = mesh.cell_group[static_cast<std::size_t>(c)];
            if (last >= regions || mesh.subdomains[last].tag != tag) {
                last = 0;
                while (last < regions && mesh.subdomains[last].tag != tag) ++last;
            }
            ++mine[last];
        }
#pragma omp critical
        for (std::size_t r = 0; r <= regions; ++r) count[r] += mine[r];
    }
    count[regions] += mesh.num_cells() - n;  // a mesh without cell groups
    return count;
}

/// The regions with their cells, then the boundary groups with their facets.
std::vector<GroupSummary> group_sizes(const Mesh& mesh, long long& cells_in_no_region)
{
    const std::vector<long long> cells = region_cell_counts(mesh);
    std::vector<GroupSummary> out;
    for (std::size_t r = 0; r < mesh.subdomains.size(); ++r) {
        const PhysicalGroup& g = mesh.subdomains[r];
        out.push_back({g.name, g.dim, g.tag, cells[r], true});
    }
    cells_in_no_region = cells.back();
    for (const BoundaryFacets& b : mesh.boundaries)
        out.push_back({b.group.name, b.group.dim, b.group.tag, static_cast<long long>(b.size()), false});
    return out;
}

}  // namespace

std::vector<GroupSummary> MeshSummary::regions() const
{
    std::vector<GroupSummary> out;
    std::copy_if(groups.begin(), groups.end(), std::back_inserter(out), [](const GroupSummary& g) { return g.region; });
    return out;
}

std::vector<GroupSummary> MeshSummary::boundary_groups() const
{
    std::vector<GroupSummary> out;
    std::copy_if(groups.begin(), groups.end(), std::back_inserter(out), [](const GroupSummary& g) { return !g.region; });
    return out;
}

std::string cell_counts_text(const MeshSummary& summary)
{
    const auto counted = [](long long count, ElementType type) {
        return std::to_string(count) + " " + (count == 1 ? element_type_name(type) : element_type_plural(type));
    };
    if (summary.cell_types.size() == 1) return counted(summary.cells, summary.cell_types[0].type);
    std::string parts;
    for (const CellTypeCount& t : summary.cell_types) parts += (parts.empty() ? "" : ", ") + counted(t.cells, t.type);
    return std::to_string(summary.cells) + " cells (" + parts + ")";
}

MeshSummary summarise_mesh(const Mesh& mesh, int named_bad_cells)
{
    MeshSummary out;
    out.source = mesh.source;
    out.dim = mesh.dim;
    out.geometry_order = mesh.curved_cells ? mesh.curved_cells->order : mesh.degree;  // curved blocks: their maps'
    out.nodes = mesh.num_nodes();
    out.cells = mesh.num_cells();
    out.cell_types = count_cell_types(mesh);
    bounding_box(mesh, out.box_min, out.box_max);
    out.groups = group_sizes(mesh, out.cells_in_no_region);
    for (const IgnoredGroup& g : mesh.ignored_boundaries) out.unusable_groups.push_back({g.name, g.reason});
    out.jacobian = summarise_jacobian_ratios(mesh, named_bad_cells);
    for (const long long c : out.jacobian.first_non_positive) out.non_positive_cells.push_back(cell_text(mesh, c));
    out.triangle_angles = triangle_angles(mesh);
    out.tetrahedron_angles = tetrahedron_dihedral_angles(mesh);
    return out;
}

MeshSummary summarise_mesh_file(const std::string& path, int named_bad_cells)
{
    return summarise_mesh(load_gmsh_mesh_isolated(mesh_spec_for_path(path)), named_bad_cells);
}

}  // namespace gpufem
