#include "mesh/cad_boundary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "mesh/cad_snap_kernels.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

/// The facet's corners as integer lattice coordinates of order m.
std::vector<std::array<long long, 2>> lattice_corners(ElementType facet, int m)
{
    const std::vector<double> corners = lagrange_reference_nodes(facet, 1);
    const int dim = element_dimension(facet);
    const bool box = facet != ElementType::triangle;
    std::vector<std::array<long long, 2>> out;
    for (std::size_t c = 0; c < corners.size() / static_cast<std::size_t>(dim); ++c) {
        std::array<long long, 2> at{0, 0};
        for (int d = 0; d < dim; ++d) {
            const double x = corners[c * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)];
            at[static_cast<std::size_t>(d)] = std::llround(box ? (x + 1) / 2 * m : x * m);
        }
        out.push_back(at);
    }
    return out;
}

/// Where lattice point p lies: which corner, or which edge and how many steps along it.
void classify(CadLatticePoint& point, const std::array<long long, 2>& p,
              const std::vector<std::array<long long, 2>>& corners, const LatticeTable& edges_of)
{
    for (std::size_t c = 0; c < corners.size(); ++c)
        if (corners[c] == p) point.corner = static_cast<int>(c);
    if (point.corner >= 0 || edges_of.type == ElementType::line) return;  // a line's inside is its own
    for (std::size_t e = 0; e < edges_of.edges.size(); ++e) {
        const auto& a = corners[static_cast<std::size_t>(edges_of.edges[e][0])];
        const auto& b = corners[static_cast<std::size_t>(edges_of.edges[e][1])];
        const long long ux = b[0] - a[0], uy = b[1] - a[1], vx = p[0] - a[0], vy = p[1] - a[1];
        const long long dot = ux * vx + uy * vy;
        if (ux * vy - uy * vx != 0 || dot <= 0 || dot >= ux * ux + uy * uy) continue;
        point.edge = static_cast<int>(e);
        point.step = static_cast<int>(std::max(std::llabs(vx), std::llabs(vy)));
    }
}

/// Refined facets per coarse facet after `refinements` uniform refinements.
long long facet_children(ElementType facet, int degree, int refinements)
{
    const auto per = static_cast<long long>(refinement_pattern(facet, degree).children.front().size());
    long long children = 1;
    for (int r = 0; r < refinements; ++r) children *= per;
    return children;
}

}  // namespace

std::vector<CadLatticePoint> cad_lattice(ElementType facet, int m)
{
    if (m < 1 || (facet != ElementType::line && facet != ElementType::triangle && facet != ElementType::quadrilateral))
        throw std::invalid_argument("cad_lattice: a line, triangle or quadrilateral of order 1 or more");
    const auto corners = lattice_corners(facet, m);
    const LatticeTable& edges_of = lattice_table(facet, 1);
    const bool box = facet != ElementType::triangle;
    const int rows = facet == ElementType::line ? 0 : m;
    std::vector<CadLatticePoint> points;
    for (int j = 0; j <= rows; ++j)
        for (int i = 0; i <= (facet == ElementType::triangle ? m - j : m); ++i) {
            CadLatticePoint point;
            const double s = static_cast<double>(i) / m, t = static_cast<double>(j) / m;
            point.xi[0] = box ? 2 * s - 1 : s;
            point.xi[1] = facet == ElementType::line ? 0.0 : (box ? 2 * t - 1 : t);
            classify(point, {i, j}, corners, edges_of);
            points.push_back(point);
        }
    return points;
}

double facet_diameter(const double* xyz, const index_type* nodes, int corners)
{
    double diameter = 0;
    for (int a = 0; a < corners; ++a)
        for (int b = a + 1; b < corners; ++b) {
            double d = 0;
            for (std::size_t c = 0; c < 3; ++c) {
                const double x = xyz[3 * static_cast<std::size_t>(nodes[a]) + c] - xyz[3 * static_cast<std::size_t>(nodes[b]) + c];
                d += x * x;
            }
            diameter = std::max(diameter, std::sqrt(d));
        }
    return diameter;
}

double facet_diameter(const Mesh& mesh, const index_type* nodes, int corners)
{
    return facet_diameter(mesh.node_coordinates().data(), nodes, corners);
}

ElementType boundary_facet_shape(const Mesh& mesh)
{
    if (mesh.dim == 2) return ElementType::line;
    return mesh.cell_type == ElementType::tetrahedron ? ElementType::triangle : ElementType::quadrilateral;
}

namespace {

/// Whether the cad boundary fits the mesh it came with for `refine` refinements: its cells'
/// order and facet shape, or for a mesh with curved maps the maps' order.
bool cad_fits(const Mesh& mesh, const CadBoundary& cad, int refine)
{
    if (refine <= 0 || cad.refinements != refine) return false;
    if (mesh.curved_cells) return cad.facet_degree == mesh.curved_cells->order;
    return !mesh.first_order_only() && cad.facet_degree == mesh.degree && cad.facet_type == boundary_facet_shape(mesh);
}

/// The shape of the facet in row `row` of the cad boundary: its facet type, or a triangle
/// padded among quadrilaterals.
ElementType row_shape(const CadBoundary& cad, const index_type* row)
{
    const int triangle = lagrange_node_count(ElementType::triangle, cad.facet_degree);
    return cad.facet_type == ElementType::quadrilateral && row[triangle] < 0 ? ElementType::triangle : cad.facet_type;
}

/// A mesh with curved maps: its facets' corners as the mesh's nodes (a curved map's corners
/// are its cell's nodes), rows of the facet type's corners (a triangle's padded with -1).
BoundaryFacets corner_facets(const Mesh& mesh, const CadBoundary& cad)
{
    const CellGeometry& maps = *mesh.curved_cells;
    std::vector<index_type> node_of(maps.coordinates.size() / 3, -1);
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        for (int j = 0; j < element_node_count(mesh.type_of_cell(c)); ++j)
            node_of[static_cast<std::size_t>(maps.cells[static_cast<std::size_t>(c) * maps.nodes_per_row + j])] =
                mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + j];
    BoundaryFacets out;
    out.type = cad.facet_type;
    out.nodes_per_facet = element_node_count(cad.facet_type);
    const std::size_t per = static_cast<std::size_t>(lagrange_node_count(cad.facet_type, cad.facet_degree));
    for (std::size_t f = 0; f < cad.facets.size() / per; ++f) {
        const index_type* row = &cad.facets[f * per];
        const int corners = element_node_count(row_shape(cad, row));
        out.mixed_triangles = out.mixed_triangles || corners < out.nodes_per_facet;
        for (int j = 0; j < out.nodes_per_facet; ++j) {
            if (j >= corners) {
                out.connectivity.push_back(-1);
                continue;
            }
            const index_type geometry = row[j];
            if (geometry < 0 || static_cast<std::size_t>(geometry) >= node_of.size() || node_of[static_cast<std::size_t>(geometry)] < 0)
                throw std::invalid_argument("mesh '" + mesh.source + "': curved facet " + std::to_string(f) +
                                            " has a corner that is no cell's corner");
            out.connectivity.push_back(node_of[static_cast<std::size_t>(geometry)]);
        }
    }
    return out;
}

/// Each facet shape's basis of order `degree` at its lattice of order m ([point][node]).
struct LatticeBases {
    std::vector<double> of[element_type_count];
    std::size_t points[element_type_count] = {};
};

LatticeBases lattice_bases(const CadBoundary& cad)
{
    LatticeBases bases;
    std::vector<ElementType> shapes{cad.facet_type};
    if (cad.facet_type == ElementType::quadrilateral) shapes.push_back(ElementType::triangle);
    for (const ElementType shape : shapes) {
        const std::vector<CadLatticePoint> lattice = cad_lattice(shape, cad.lattice_order);
        const int dim = element_dimension(shape);
        std::vector<double> xi, gradients;
        for (const CadLatticePoint& p : lattice) xi.insert(xi.end(), p.xi, p.xi + dim);
        lagrange_basis(shape, cad.facet_degree, xi, bases.of[static_cast<std::size_t>(shape)], gradients);
        bases.points[static_cast<std::size_t>(shape)] = lattice.size();
    }
    return bases;
}

/// Fills snap.map_points and snap.tolerance: each coarse facet's map (its nodes in `xyz`) at
/// its lattice points, and a small fraction of its lattice step.
void map_points(const CadBoundary& cad, const double* xyz, CadSnap& snap)
{
    const LatticeBases bases = lattice_bases(cad);
    const std::size_t per = static_cast<std::size_t>(lagrange_node_count(cad.facet_type, cad.facet_degree));
    const std::size_t facets = cad.facets.size() / per;
    const std::size_t points = bases.points[static_cast<std::size_t>(cad.facet_type)];
    snap.map_points.assign(facets * points * 3, std::numeric_limits<double>::quiet_NaN());
    snap.tolerance.assign(facets, 0.0);
    // Each facet's map points on its own (5.6M products for a CAD part's 6,900 curved facets
    // at lattice order 8): on the host's threads.
#pragma omp parallel for schedule(static)
    for (std::size_t f = 0; f < facets; ++f) {
        const index_type* nodes = &cad.facets[f * per];
        const ElementType shape = row_shape(cad, nodes);
        const std::size_t n = static_cast<std::size_t>(lagrange_node_count(shape, cad.facet_degree));
        const std::vector<double>& values = bases.of[static_cast<std::size_t>(shape)];
        snap.tolerance[f] = 1e-4 * facet_diameter(xyz, nodes, element_node_count(shape)) / cad.lattice_order;
        double* out = &snap.map_points[f * points * 3];
        for (std::size_t k = 0; k < bases.points[static_cast<std::size_t>(shape)]; ++k)
            for (int c = 0; c < 3; ++c) {
                double sum = 0;
                for (std::size_t i = 0; i < n; ++i) sum += values[k * n + i] * xyz[3 * static_cast<std::size_t>(nodes[i]) + c];
                out[k * 3 + static_cast<std::size_t>(c)] = sum;
            }
    }
}

/// Moves the nodes of `facets` (the coarse facets' children, rows of nodes of `from`) to
/// their lattice points' places on the geometry, writing `to`.
void snap_nodes(const CadSnap& snap, const BoundaryFacets& facets, const Array<double>& from, Array<double>& to,
                const ExecPtr& exec, const std::string& what)
{
    const CadBoundary& cad = *snap.cad;
    const Array<index_type> rows = Array<index_type>::from_host(exec, facets.connectivity);
    const Array<double> map_points = Array<double>::from_host(exec, snap.map_points);
    const Array<double> cad_points = Array<double>::from_host(exec, cad.points);
    const Array<double> tolerance = Array<double>::from_host(exec, snap.tolerance);
    CadSnapView view;
    view.facets = rows.data();
    view.num_facets = static_cast<long long>(facets.size());
    view.nodes_per_facet = facets.nodes_per_facet;
    view.children = facet_children(cad.facet_type, cad.facet_degree, cad.refinements);
    view.lattice_points = static_cast<int>(cad_lattice(cad.facet_type, cad.lattice_order).size());
    view.map_points = map_points.data();
    view.cad_points = cad_points.data();
    view.tolerance = tolerance.data();
    const long long unmatched = GPUFEM_DISPATCH(*exec, snap_facet_nodes(*exec, view, from.data(), to.data()));
    if (unmatched > 0)
        throw std::logic_error(what + ": " + std::to_string(unmatched) +
                               " nodes of its refined curved boundary lie at no point of their coarse facet");
}

}  // namespace

std::optional<CadSnap> cad_snap_for(const Mesh& mesh, int refine)
{
    const auto& cad = mesh.cad_boundary;
    if (!cad || !cad_fits(mesh, *cad, refine)) return std::nullopt;
    StageLaps laps;
    CadSnap snap;
    snap.cad = cad;
    const std::size_t per = static_cast<std::size_t>(lagrange_node_count(cad->facet_type, cad->facet_degree));
    const std::size_t points = cad_lattice(cad->facet_type, cad->lattice_order).size();
    const std::size_t facets = cad->facets.size() / per;
    if (cad->points.size() != facets * points * 3)
        throw std::invalid_argument("mesh '" + mesh.source + "': its curved boundary holds " +
                                    std::to_string(cad->points.size()) + " coordinates for " +
                                    std::to_string(facets) + " facets of " + std::to_string(points) + " points");
    if (mesh.curved_cells) {  // refined from the corners: the facets as corners
        snap.facets = corner_facets(mesh, *cad);
    } else {
        snap.facets.type = cad->facet_type;
        snap.facets.degree = cad->facet_degree;
        snap.facets.nodes_per_facet = static_cast<int>(per);
        snap.facets.connectivity = cad->facets;
    }
    snap.facets.group.name = "curved boundary";
    laps.lap("facets");
    map_points(*cad, mesh.curved_cells ? mesh.curved_cells->coordinates.data() : mesh.node_coordinates().data(), snap);
    laps.lap("map points");
    spdlog::debug("CAD points of {} curved facets, {} each: {}", facets, points, laps.text);
    return snap;
}

void snap_to_cad(Mesh& mesh, const CadSnap& snap, const ExecPtr& exec, bool host_written)
{
    const bool on_device = exec->is_cuda() && mesh.device;
    const std::span<const double> host(mesh.node_coordinates().data(), mesh.node_coordinates().size());
    const Array<double> from_host = on_device ? Array<double>() : Array<double>::from_host(exec, host);
    const Array<double>& from = on_device ? mesh.device->coordinates : from_host;
    Array<double> to = from.clone_to(exec);
    snap_nodes(snap, snap.facets, from, to, exec, "mesh '" + mesh.source + "'");
    if (!on_device || host_written) {
        static const ExecPtr host_exec = Executor::create_cpu();
        copy_bytes(*host_exec, mesh.coordinates.data(), *exec, to.data(), to.bytes());
    }
    if (on_device) {
        auto device = std::make_shared<MeshOnDevice>();
        device->cells = mesh.device->cells.clone_to(exec);
        device->cell_group = mesh.device->cell_group.clone_to(exec);
        device->coordinates = std::move(to);
        mesh.device = std::move(device);
    }
}

void snap_map_nodes_to_cad(Array<double>& coordinates, const BoundaryFacets& facets, const CadSnap& snap,
                           const ExecPtr& exec, const std::string& source)
{
    Array<double> to = coordinates.clone_to(exec);
    snap_nodes(snap, facets, coordinates, to, exec, "the curved maps of mesh '" + source + "'");
    coordinates = std::move(to);
}

}  // namespace gpufem
