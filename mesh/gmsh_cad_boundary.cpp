#include "mesh/gmsh_cad_boundary.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <gmsh.h>
#include <spdlog/spdlog.h>

#include "mesh/cad_boundary.hpp"
#include "mesh/gmsh_parametrisation.hpp"
#include "mesh/gmsh_element_types.hpp"
#include "mesh/lattice_table.hpp"

namespace gpufem {
namespace {

/// The most lattice points kept for a mesh (3 doubles each).
constexpr long long max_cad_points = 64'000'000;

/// Parameters of a point on a curve (t) or a surface (u, v).
using Parameters = std::array<double, 2>;

/// Whether an entity's geometry is curved and known to Gmsh: neither a plane nor a straight
/// line, nor a discrete or compound entity (a mesh's, with no CAD behind it).
bool curved_entity(int dim, int tag)
{
    std::string type;
    gmsh::model::getType(dim, tag, type);
    if (type == "Plane" || type == "Line" || type == "Unknown") return false;
    return type.find("Discrete") == std::string::npos && type.find("Compound") == std::string::npos &&
           type.find("discrete") == std::string::npos;
}

/// Gmsh's Lagrange basis of an element type at reference points (x, y per point): [point][node].
std::vector<double> gmsh_basis(int gmsh_type, const std::vector<std::array<double, 2>>& points)
{
    std::vector<double> local;
    for (const auto& p : points) local.insert(local.end(), {p[0], p[1], 0.0});
    int components = 0, orientations = 0;
    std::vector<double> values;
    gmsh::model::mesh::getBasisFunctions(gmsh_type, local, "Lagrange", components, values, orientations);
    return values;
}

/// A facet shape at the mesh's order g, with its lattice of order m and the bases there.
struct FacetLayout {
    ElementType type = ElementType::triangle;
    int degree = 1;
    int nodes = 0;  ///< nodes per facet
    int m = 1;      ///< lattice order
    std::vector<CadLatticePoint> lattice;
    std::vector<std::array<int, 2>> edges;  ///< each edge's corners
    std::vector<std::vector<int>> edge_slots;  ///< each edge's inner nodes, from its first corner
    std::vector<double> facet_basis;  ///< [lattice point][node]
    std::vector<double> edge_basis;   ///< [step - 1][node] the order-g line's (ends, then inner nodes)
};

FacetLayout facet_layout(ElementType type, int g, int m)
{
    FacetLayout layout;
    layout.type = type;
    layout.degree = g;
    layout.nodes = lagrange_node_count(type, g);
    layout.m = m;
    layout.lattice = cad_lattice(type, m);
    const LatticeTable& table = lattice_table(type, g);
    if (type != ElementType::line) layout.edges = table.edges;  // a line's inside is its own
    layout.edge_slots.assign(layout.edges.size(), std::vector<int>(static_cast<std::size_t>(g - 1), -1));
    for (std::size_t p = 0; p < table.points.size(); ++p)
        if (table.points[p].dim == 1 && type != ElementType::line)
            layout.edge_slots[static_cast<std::size_t>(table.points[p].entity)]
                             [static_cast<std::size_t>(table.points[p].s - 1)] = static_cast<int>(p);
    std::vector<std::array<double, 2>> xi, steps;
    for (const CadLatticePoint& p : layout.lattice) xi.push_back({p.xi[0], p.xi[1]});
    for (int s = 1; s < m; ++s) steps.push_back({-1.0 + 2.0 * s / m, 0.0});
    layout.facet_basis = gmsh_basis(gmsh_element_type(type, g), xi);
    if (!steps.empty()) layout.edge_basis = gmsh_basis(gmsh_element_type(ElementType::line, g), steps);
    return layout;
}

/// An edge's key from its end nodes, either order.
std::uint64_t edge_key(index_type a, index_type b)
{
    const auto lo = static_cast<std::uint64_t>(std::min(a, b)), hi = static_cast<std::uint64_t>(std::max(a, b));
    return (lo << 32) | hi;
}

/// Each edge's points at steps 1..m-1 from its lower-numbered end: x, y, z per point.
using EdgePoints = std::unordered_map<std::uint64_t, std::vector<double>>;

/// Points to place on one entity: each one's map point, tolerance and target, and for those
/// placed through the entity's parameters, the parameters.
struct Pending {
    std::vector<double> parameters;             ///< of the points in with_parameters
    std::vector<std::size_t> with_parameters;   ///< the points that have parameters
    std::vector<double> map;
    std::vector<double> tolerance;
    std::vector<double*> target;

    /// A point at the entity's parameters `at` (dim of them).
    void add(const Parameters& at, int dim, const double* x, double tol, double* to)
    {
        with_parameters.push_back(target.size());
        parameters.insert(parameters.end(), at.begin(), at.begin() + dim);
        add_projected(x, tol, to);
    }
    /// A point found by projecting the map point x onto the entity.
    void add_projected(const double* x, double tol, double* to)
    {
        map.insert(map.end(), x, x + 3);
        tolerance.push_back(tol);
        target.push_back(to);
    }
};

/// The farthest a point of the geometry may lie from the facet's map of its lattice point,
/// as a fraction of the facet's diameter: a map of order 2 or more lies within O(h^3) of the
/// geometry, a straight facet within its sagitta (h^2 / 8R).
double accepted_distance(int degree)
{
    return degree >= 2 ? 0.005 : 0.25;
}

double distance(const double* a, const double* b)
{
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/// Places the pending points: the entity at their parameters; those farther from their map
/// point than their tolerance by projection of the map point; those still too far at it.
void place(int dim, int tag, const Pending& pending, CadBoundary& out)
{
    if (pending.target.empty()) return;
    std::vector<double> at, closest, parameters;
    std::vector<char> placed(pending.target.size(), 0);
    if (!pending.with_parameters.empty()) gmsh::model::getValue(dim, tag, pending.parameters, at);
    for (std::size_t i = 0; i < pending.with_parameters.size() && at.size() == 3 * pending.with_parameters.size(); ++i) {
        const std::size_t k = pending.with_parameters[i];
        if (distance(&at[3 * i], &pending.map[3 * k]) > pending.tolerance[k]) continue;
        std::copy_n(&at[3 * i], 3, pending.target[k]);
        placed[k] = 1;
    }
    std::vector<std::size_t> left;
    std::vector<double> left_map;
    for (std::size_t k = 0; k < placed.size(); ++k)
        if (!placed[k]) {
            left.push_back(k);
            left_map.insert(left_map.end(), &pending.map[3 * k], &pending.map[3 * k] + 3);
        }
    if (left.empty()) return;
    gmsh::model::getClosestPoint(dim, tag, left_map, closest, parameters);
    for (std::size_t i = 0; i < left.size(); ++i) {
        const std::size_t k = left[i];
        const bool near = closest.size() == left_map.size() &&
                          distance(&closest[3 * i], &pending.map[3 * k]) <= pending.tolerance[k];
        std::copy_n(near ? &closest[3 * i] : &pending.map[3 * k], 3, pending.target[k]);
        ++(near ? out.projected : out.kept);
    }
}

/// The parameters of the nodes of one entity (its own and those on its boundary, Gmsh
/// reparametrising them), by mesh node number, and the period of each periodic direction.
struct EntityParameters {
    int dim = 1;
    std::unordered_map<index_type, Parameters> at;
    std::unordered_set<index_type> singular;  ///< nodes where the parametrisation degenerates (a pole)
    Parameters period{0, 0};
};

/// The nodes at which a derivative of the entity's parametrisation vanishes.
std::unordered_set<index_type> singular_nodes(int dim, int tag, const std::vector<index_type>& nodes,
                                              const std::vector<double>& parameters)
{
    const std::vector<int> degenerate = degenerate_directions(dim, tag, parameters);
    std::unordered_set<index_type> singular;
    for (std::size_t i = 0; i < degenerate.size(); ++i)
        if (nodes[i] >= 0 && degenerate[i] >= 0) singular.insert(nodes[i]);
    return singular;
}

EntityParameters entity_parameters(int dim, int tag, const GmshNodeNumbering& numbering)
{
    EntityParameters out;
    out.dim = dim;
    std::vector<std::size_t> tags;
    std::vector<double> coordinates, parameters;
    gmsh::model::mesh::getNodes(tags, coordinates, parameters, dim, tag, true, true);
    if (parameters.size() != tags.size() * static_cast<std::size_t>(dim)) return out;
    out.at.reserve(tags.size());
    std::vector<index_type> nodes(tags.size());
    for (std::size_t i = 0; i < tags.size(); ++i) {
        nodes[i] = numbering.index(tags[i]);
        if (nodes[i] >= 0) out.at[nodes[i]] = {parameters[i * dim], dim == 2 ? parameters[i * dim + 1] : 0.0};
    }
    out.singular = singular_nodes(dim, tag, nodes, parameters);
    out.period = parametrisation_periods(dim, tag);
    return out;
}

/// The parameters of `nodes` on the entity, each periodic direction brought within half a
/// period of the first node's; false if a node has none, or is singular.
bool node_parameters(const EntityParameters& entity, const std::vector<index_type>& nodes, std::vector<Parameters>& out)
{
    out.clear();
    for (const index_type n : nodes) {
        const auto found = entity.at.find(n);
        if (found == entity.at.end() || entity.singular.contains(n)) return false;
        Parameters p = found->second;
        for (std::size_t d = 0; d < 2 && !out.empty(); ++d) {
            const double period = entity.period[d];
            if (period > 0) p[d] -= period * std::round((p[d] - out.front()[d]) / period);
        }
        out.push_back(p);
    }
    return true;
}

/// sum_i values[i] * basis[i] of per-node triples or parameter pairs.
template <typename Get>
std::array<double, 3> combine(const double* basis, std::size_t nodes, Get&& get)
{
    std::array<double, 3> sum{0, 0, 0};
    for (std::size_t i = 0; i < nodes; ++i)
        for (std::size_t c = 0; c < 3; ++c) sum[c] += basis[i] * get(i, c);
    return sum;
}

/// The points of a curve's mesh lines at their edges' steps: the curve at interpolated
/// parameters (straight lines: the line's own map), into `edges`.
void curve_edge_points(int tag, const Mesh& mesh, const GmshNodeNumbering& numbering, const FacetLayout& line,
                       EdgePoints& edges, CadBoundary& out)
{
    std::vector<int> types;
    std::vector<std::vector<std::size_t>> element_tags, node_tags;
    gmsh::model::mesh::getElements(types, element_tags, node_tags, 1, tag);
    const bool curved = curved_entity(1, tag);
    const EntityParameters parameters = curved ? entity_parameters(1, tag, numbering) : EntityParameters{};
    const int line_type = gmsh_element_type(ElementType::line, line.degree);
    Pending pending;
    std::vector<Parameters> at;
    for (std::size_t k = 0; k < types.size(); ++k) {
        if (types[k] != line_type) continue;
        for (std::size_t e = 0; e + line.nodes <= node_tags[k].size(); e += static_cast<std::size_t>(line.nodes)) {
            std::vector<index_type> nodes;
            for (int i = 0; i < line.nodes; ++i) nodes.push_back(numbering.index(node_tags[k][e + i]));
            if (std::any_of(nodes.begin(), nodes.end(), [](index_type n) { return n < 0; })) continue;
            if (nodes[0] > nodes[1]) {  // from the lower-numbered end
                std::swap(nodes[0], nodes[1]);
                std::reverse(nodes.begin() + 2, nodes.end());
            }
            auto [slot, fresh] = edges.try_emplace(edge_key(nodes[0], nodes[1]), std::vector<double>(3 * (line.m - 1)));
            if (!fresh) continue;
            const bool with_parameters = curved && node_parameters(parameters, nodes, at);
            const double tol = accepted_distance(line.degree) *
                               distance(&mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[0])],
                                        &mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[1])]);
            for (int s = 1; s < line.m; ++s) {
                const double* basis = &line.edge_basis[static_cast<std::size_t>(s - 1) * line.nodes];
                const auto x = combine(basis, nodes.size(), [&](std::size_t i, std::size_t c) {
                    return mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[i]) + c];
                });
                double* to = &slot->second[3 * static_cast<std::size_t>(s - 1)];
                std::copy(x.begin(), x.end(), to);
                if (!curved) continue;  // a straight line: its map is exact
                if (!with_parameters) {
                    pending.add_projected(x.data(), tol, to);
                    continue;
                }
                const auto t = combine(basis, nodes.size(), [&](std::size_t i, std::size_t c) { return c == 0 ? at[i][0] : 0.0; });
                pending.add({t[0], 0.0}, 1, x.data(), tol, to);
            }
        }
    }
    place(1, tag, pending, out);
}

/// The nodes of a facet's edge from its lower-numbered end: the ends, then the inner nodes.
std::vector<index_type> edge_nodes(const FacetLayout& layout, const std::vector<index_type>& facet, std::size_t e)
{
    std::vector<index_type> nodes{facet[static_cast<std::size_t>(layout.edges[e][0])],
                                  facet[static_cast<std::size_t>(layout.edges[e][1])]};
    for (const int slot : layout.edge_slots[e]) nodes.push_back(facet[static_cast<std::size_t>(slot)]);
    if (nodes[0] > nodes[1]) {
        std::swap(nodes[0], nodes[1]);
        std::reverse(nodes.begin() + 2, nodes.end());
    }
    return nodes;
}

/// Queues the points of a facet's edges that no curve and no earlier facet made: the
/// entity at the edge's interpolated parameters.
void queue_edges(const Mesh& mesh, const FacetLayout& layout, const std::vector<index_type>& facet,
                 const EntityParameters& parameters, EdgePoints& edges, Pending& pending)
{
    std::vector<Parameters> at;
    for (std::size_t e = 0; e < layout.edges.size(); ++e) {
        const std::vector<index_type> nodes = edge_nodes(layout, facet, e);
        auto [slot, fresh] = edges.try_emplace(edge_key(nodes[0], nodes[1]), std::vector<double>(3 * (layout.m - 1)));
        if (!fresh) continue;
        const bool known = node_parameters(parameters, nodes, at);
        const double tol = accepted_distance(layout.degree) * facet_diameter(mesh, nodes.data(), 2);
        for (int s = 1; s < layout.m; ++s) {
            const double* basis = &layout.edge_basis[static_cast<std::size_t>(s - 1) * nodes.size()];
            const auto x = combine(basis, nodes.size(), [&](std::size_t i, std::size_t c) {
                return mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[i]) + c];
            });
            double* to = &slot->second[3 * static_cast<std::size_t>(s - 1)];
            std::copy(x.begin(), x.end(), to);
            if (!known) {
                pending.add_projected(x.data(), tol, to);
                continue;
            }
            const auto uv = combine(basis, nodes.size(), [&](std::size_t i, std::size_t c) { return c < 2 ? at[i][c] : 0.0; });
            pending.add({uv[0], uv[1]}, parameters.dim, x.data(), tol, to);
        }
    }
}

/// Queues a facet's inner lattice points and writes its corners.
void queue_facet(const Mesh& mesh, const FacetLayout& layout, const std::vector<index_type>& facet,
                 const std::vector<Parameters>& at, bool parametric, int dim, double* points, Pending& pending)
{
    const double tol = accepted_distance(layout.degree) * facet_diameter(mesh, facet.data(), element_node_count(layout.type));
    const auto nodes = static_cast<std::size_t>(layout.nodes);
    for (std::size_t k = 0; k < layout.lattice.size(); ++k) {
        const CadLatticePoint& p = layout.lattice[k];
        if (p.corner >= 0) {
            std::copy_n(&mesh.node_coordinates()[3 * static_cast<std::size_t>(facet[static_cast<std::size_t>(p.corner)])], 3,
                        points + 3 * k);
            continue;
        }
        if (p.edge >= 0) continue;  // from the edges' points afterwards
        const double* basis = &layout.facet_basis[k * nodes];
        const auto x = combine(basis, nodes, [&](std::size_t i, std::size_t c) {
            return mesh.node_coordinates()[3 * static_cast<std::size_t>(facet[i]) + c];
        });
        if (!parametric) {
            pending.add_projected(x.data(), tol, points + 3 * k);
            continue;
        }
        const auto uv = combine(basis, nodes, [&](std::size_t i, std::size_t c) { return c < 2 ? at[i][c] : 0.0; });
        pending.add({uv[0], uv[1]}, dim, x.data(), tol, points + 3 * k);
    }
}

/// Copies a facet's edge points from `edges`.
void fill_edges(const FacetLayout& layout, const index_type* facet, const EdgePoints& edges, double* points)
{
    for (std::size_t k = 0; k < layout.lattice.size(); ++k) {
        const CadLatticePoint& p = layout.lattice[k];
        if (p.edge < 0) continue;
        const auto& corners = layout.edges[static_cast<std::size_t>(p.edge)];
        const index_type a = facet[corners[0]], b = facet[corners[1]];
        const int step = a < b ? p.step : layout.m - p.step;
        const std::vector<double>& along = edges.at(edge_key(a, b));
        std::copy_n(&along[3 * static_cast<std::size_t>(step - 1)], 3, points + 3 * k);
    }
}

/// How a CadBoundary's rows are laid out: each facet's nodes in `width` entries (a shorter
/// facet's padded with -1) and its points in `points` triples (a smaller lattice's padded
/// with NaN, which no node matches).
struct RowLayout {
    std::size_t width = 0;
    std::size_t points = 0;
};

/// Adds the facets of one curved entity of dimension dim - 1 of the layout's type, with their
/// lattice points, in rows of `rows`.
void entity_facets(int dim, int tag, const Mesh& mesh, const GmshNodeNumbering& numbering, const FacetLayout& layout,
                   const RowLayout& rows, EdgePoints& edges, CadBoundary& out)
{
    if (!curved_entity(dim, tag)) return;
    std::vector<int> types;
    std::vector<std::vector<std::size_t>> element_tags, node_tags;
    gmsh::model::mesh::getElements(types, element_tags, node_tags, dim, tag);
    const auto type = std::find(types.begin(), types.end(), gmsh_element_type(layout.type, layout.degree));
    if (type == types.end()) return;
    const std::vector<std::size_t>& tags = node_tags[static_cast<std::size_t>(type - types.begin())];
    const auto per = static_cast<std::size_t>(layout.nodes);
    const EntityParameters parameters = entity_parameters(dim, tag, numbering);
    const std::size_t first = out.facets.size() / rows.width;
    out.points.reserve(out.points.size() + tags.size() / per * rows.points * 3);  // targets stay put
    Pending pending;
    std::vector<index_type> facet(per);
    std::vector<Parameters> at;
    for (std::size_t e = 0; e + per <= tags.size(); e += per) {
        for (std::size_t i = 0; i < per; ++i) facet[i] = numbering.index(tags[e + i]);
        if (std::any_of(facet.begin(), facet.end(), [](index_type n) { return n < 0; })) continue;
        const bool parametric = node_parameters(parameters, facet, at);
        queue_edges(mesh, layout, facet, parameters, edges, pending);
        out.facets.insert(out.facets.end(), facet.begin(), facet.end());
        out.facets.resize(out.facets.size() + rows.width - per, -1);
        out.points.resize(out.points.size() + rows.points * 3, std::numeric_limits<double>::quiet_NaN());
        queue_facet(mesh, layout, facet, at, parametric, dim, out.points.data() + out.points.size() - rows.points * 3,
                    pending);
    }
    place(dim, tag, pending, out);
    for (std::size_t f = first; f < out.facets.size() / rows.width; ++f)
        fill_edges(layout, &out.facets[f * rows.width], edges, &out.points[f * rows.points * 3]);
}

/// The facet shapes a mesh's curved boundary is made of: its boundary_facet_shape, or for a
/// mesh of prisms, pyramids or several types (read at order 2, before split_curved_cells)
/// both triangles and quadrilaterals, in rows of a quadrilateral.
std::vector<ElementType> curved_facet_shapes(const Mesh& mesh)
{
    if (mesh.dim == 3 && mesh.first_order_only()) return {ElementType::triangle, ElementType::quadrilateral};
    return {boundary_facet_shape(mesh)};
}

}  // namespace

std::shared_ptr<const CadBoundary> gmsh_cad_boundary(const Mesh& mesh, const GmshNodeNumbering& numbering,
                                                     int refinements)
{
    if (refinements <= 0 || mesh.degree < 2 || (mesh.first_order_only() && mesh.degree != 2) ||
        (mesh.degree << refinements) > 64)
        return nullptr;
    const auto start = std::chrono::steady_clock::now();
    auto out = std::make_shared<CadBoundary>();
    const std::vector<ElementType> shapes = curved_facet_shapes(mesh);
    out->facet_type = shapes.back();
    out->facet_degree = mesh.degree;
    out->refinements = refinements;
    out->lattice_order = mesh.degree << refinements;
    const RowLayout rows{static_cast<std::size_t>(lagrange_node_count(out->facet_type, mesh.degree)),
                         cad_lattice(out->facet_type, out->lattice_order).size()};
    EdgePoints edges;
    gmsh::vectorpair entities;
    if (mesh.dim == 3) {
        const FacetLayout line = facet_layout(ElementType::line, mesh.degree, out->lattice_order);
        gmsh::model::getEntities(entities, 1);
        for (const auto& [dim, tag] : entities) curve_edge_points(tag, mesh, numbering, line, edges, *out);
    }
    gmsh::model::getEntities(entities, mesh.dim - 1);
    for (const ElementType shape : shapes) {
        const FacetLayout layout = facet_layout(shape, mesh.degree, out->lattice_order);
        for (const auto& [dim, tag] : entities) {
            entity_facets(dim, tag, mesh, numbering, layout, rows, edges, *out);
            if (static_cast<long long>(out->points.size() / 3) > max_cad_points) {
                spdlog::warn("mesh '{}': the curved geometry's points for {} refinements pass {}; refined without them",
                             mesh.source, refinements, max_cad_points);
                return nullptr;
            }
        }
    }
    if (out->facets.empty()) return nullptr;
    spdlog::debug("mesh '{}': {} facets on curved geometry, {} points for {} refinements ({} projected, {} on "
                  "the facets' maps) in {:.3f} s",
                  mesh.source, out->facets.size() / rows.width, out->points.size() / 3,
                  refinements, out->projected, out->kept,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return out;
}

}  // namespace gpufem
