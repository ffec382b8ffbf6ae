#include "mesh/cad_boundary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
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

double facet_diameter(const Mesh& mesh, const index_type* nodes, int corners)
{
    double diameter = 0;
    for (int a = 0; a < corners; ++a)
        for (int b = a + 1; b < corners; ++b) {
            double d = 0;
            for (std::size_t c = 0; c < 3; ++c) {
                const double x = mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[a]) + c] -
                                 mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[b]) + c];
                d += x * x;
            }
            diameter = std::max(diameter, std::sqrt(d));
        }
    return diameter;
}

ElementType boundary_facet_shape(const Mesh& mesh)
{
    if (mesh.dim == 2) return ElementType::line;
    return mesh.cell_type == ElementType::tetrahedron ? ElementType::triangle : ElementType::quadrilateral;
}

std::optional<CadSnap> cad_snap_for(const Mesh& mesh, int refine)
{
    const auto& cad = mesh.cad_boundary;
    if (!cad || refine <= 0 || cad->refinements != refine || mesh.first_order_only() ||
        cad->facet_degree != mesh.degree || cad->facet_type != boundary_facet_shape(mesh))
        return std::nullopt;
    StageLaps laps;
    CadSnap snap;
    snap.cad = cad;
    snap.facets.group.name = "curved boundary";
    snap.facets.type = cad->facet_type;
    snap.facets.degree = cad->facet_degree;
    snap.facets.nodes_per_facet = lagrange_node_count(cad->facet_type, cad->facet_degree);
    snap.facets.connectivity = cad->facets;
    const std::vector<CadLatticePoint> lattice = cad_lattice(cad->facet_type, cad->lattice_order);
    const int dim = element_dimension(cad->facet_type);
    std::vector<double> xi;
    for (const CadLatticePoint& p : lattice) xi.insert(xi.end(), p.xi, p.xi + dim);
    std::vector<double> values, gradients;
    lagrange_basis(cad->facet_type, cad->facet_degree, xi, values, gradients);
    const std::size_t per = static_cast<std::size_t>(snap.facets.nodes_per_facet);
    const std::size_t facets = snap.facets.size();
    if (cad->points.size() != facets * lattice.size() * 3)
        throw std::invalid_argument("mesh '" + mesh.source + "': its curved boundary holds " +
                                    std::to_string(cad->points.size()) + " coordinates for " +
                                    std::to_string(facets) + " facets of " + std::to_string(lattice.size()) + " points");
    snap.map_points.assign(facets * lattice.size() * 3, 0.0);
    snap.tolerance.assign(facets, 0.0);
    laps.lap("basis");
    const int corners = element_node_count(cad->facet_type);
    const double* xyz = mesh.node_coordinates().data();
    const std::size_t points = lattice.size();
    // Each facet's map points on its own (5.6M products for a CAD part's 6,900 curved facets
    // at lattice order 8): on the host's threads.
#pragma omp parallel for schedule(static)
    for (std::size_t f = 0; f < facets; ++f) {
        const index_type* nodes = &cad->facets[f * per];
        snap.tolerance[f] = 1e-4 * facet_diameter(mesh, nodes, corners) / cad->lattice_order;
        double* out = &snap.map_points[f * points * 3];
        for (std::size_t k = 0; k < points; ++k)
            for (std::size_t i = 0; i < per; ++i) {
                const double w = values[k * per + i];
                const double* x = xyz + 3 * static_cast<std::size_t>(nodes[i]);
                for (int c = 0; c < 3; ++c) out[k * 3 + c] += w * x[c];
            }
    }
    laps.lap("map points");
    spdlog::debug("CAD points of {} curved facets, {} each: {}", facets, points, laps.text);
    return snap;
}

void snap_to_cad(Mesh& mesh, const CadSnap& snap, const ExecPtr& exec, bool host_written)
{
    const CadBoundary& cad = *snap.cad;
    const Array<index_type> facets = Array<index_type>::from_host(exec, snap.facets.connectivity);
    const Array<double> map_points = Array<double>::from_host(exec, snap.map_points);
    const Array<double> cad_points = Array<double>::from_host(exec, cad.points);
    const Array<double> tolerance = Array<double>::from_host(exec, snap.tolerance);
    CadSnapView view;
    view.facets = facets.data();
    view.num_facets = static_cast<long long>(snap.facets.size());
    view.nodes_per_facet = snap.facets.nodes_per_facet;
    view.children = facet_children(cad.facet_type, cad.facet_degree, cad.refinements);
    view.lattice_points = static_cast<int>(cad_lattice(cad.facet_type, cad.lattice_order).size());
    view.map_points = map_points.data();
    view.cad_points = cad_points.data();
    view.tolerance = tolerance.data();
    const bool on_device = exec->is_cuda() && mesh.device;
    const std::span<const double> host(mesh.node_coordinates().data(), mesh.node_coordinates().size());
    const Array<double> from_host = on_device ? Array<double>() : Array<double>::from_host(exec, host);
    const Array<double>& from = on_device ? mesh.device->coordinates : from_host;
    Array<double> to = from.clone_to(exec);
    const long long unmatched = GPUFEM_DISPATCH(*exec, snap_facet_nodes(*exec, view, from.data(), to.data()));
    if (unmatched > 0)
        throw std::logic_error("mesh '" + mesh.source + "': " + std::to_string(unmatched) +
                               " nodes of its refined curved boundary lie at no point of their coarse facet");
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

}  // namespace gpufem
