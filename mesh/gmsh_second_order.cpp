#include "mesh/gmsh_second_order.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <gmsh.h>

#include "mesh/gmsh_parametrisation.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

/// Gmsh's element types: first order, and the second-order type of each.
constexpr int point_type = 15;
constexpr std::array<int, 4> first_order_type{point_type, 1, 2, 4};  ///< by dimension
constexpr std::array<int, 4> second_order_type{point_type, 8, 9, 11};

/// Parameters of a point on a curve (t) or a surface (u, v).
using Parameters = std::array<double, 2>;

/// One entity's mesh as Gmsh had it, and the midpoint nodes classified on it.
struct EntityMesh {
    int dim = 0, tag = 0;
    std::vector<std::size_t> nodes;  ///< its own nodes
    std::vector<double> coordinates, parameters;
    bool has_parameters = false;  ///< dim parameters per own node (curves and surfaces with a CAD)
    std::vector<std::size_t> elements, element_nodes;  ///< of first_order_type[dim]
    std::vector<std::size_t> new_nodes;
    std::vector<double> new_coordinates, new_parameters;
};

/// The key of the edge between nodes a and b, either way round.
struct EdgeKey {
    std::size_t low, high;
    bool operator==(const EdgeKey&) const = default;
};
EdgeKey edge_key(std::size_t a, std::size_t b) { return {std::min(a, b), std::max(a, b)}; }
struct EdgeHash {
    std::size_t operator()(const EdgeKey& e) const { return e.low * 0x9E3779B97F4A7C15ull ^ e.high; }
};

/// The corners of each edge node of a second-order type, in Gmsh's node order (found from its
/// reference nodes: node k is the midpoint of corners i and j).
std::vector<std::array<int, 2>> edge_corners(int type)
{
    std::string name;
    int dim = 0, order = 0, nodes = 0, corners = 0;
    std::vector<double> reference;
    gmsh::model::mesh::getElementProperties(type, name, dim, order, nodes, reference, corners);
    std::vector<std::array<int, 2>> out;
    const auto at = [&](int node, int c) { return reference[static_cast<std::size_t>(node * dim + c)]; };
    for (int k = corners; k < nodes; ++k)
        for (int i = 0; i < corners; ++i)
            for (int j = i + 1; j < corners; ++j) {
                bool middle = true;
                for (int c = 0; c < dim; ++c) middle = middle && std::abs(0.5 * (at(i, c) + at(j, c)) - at(k, c)) < 1e-12;
                if (middle) out.push_back({i, j});
            }
    if (out.size() != static_cast<std::size_t>(nodes - corners))
        throw std::logic_error("make_second_order: the edge nodes of " + name + " are not its edges' midpoints");
    return out;
}

/// Every entity's mesh; throws when an element is not a first-order simplex or point.
std::vector<EntityMesh> read_model_mesh()
{
    gmsh::vectorpair entities;
    gmsh::model::getEntities(entities);
    std::vector<EntityMesh> out;
    for (const auto& [dim, tag] : entities) {
        EntityMesh e;
        e.dim = dim, e.tag = tag;
        gmsh::model::mesh::getNodes(e.nodes, e.coordinates, e.parameters, dim, tag, false, dim == 1 || dim == 2);
        e.has_parameters = (dim == 1 || dim == 2) && !e.nodes.empty() &&
                           e.parameters.size() == e.nodes.size() * static_cast<std::size_t>(dim);
        if (!e.has_parameters) e.parameters.clear();
        std::vector<int> types;
        std::vector<std::vector<std::size_t>> element_tags, node_tags;
        gmsh::model::mesh::getElements(types, element_tags, node_tags, dim, tag);
        for (std::size_t k = 0; k < types.size(); ++k) {
            if (types[k] != first_order_type[static_cast<std::size_t>(dim)])
                throw std::runtime_error("make_second_order: an element of type " + std::to_string(types[k]) +
                                         " in entity (" + std::to_string(dim) + ", " + std::to_string(tag) + ")");
            e.elements.insert(e.elements.end(), element_tags[k].begin(), element_tags[k].end());
            e.element_nodes.insert(e.element_nodes.end(), node_tags[k].begin(), node_tags[k].end());
        }
        out.push_back(std::move(e));
    }
    return out;
}

/// The parameters on a curve or surface of its nodes and of those on its boundary (Gmsh
/// reparametrises them), by node tag, the direction in which the surface degenerates at a
/// node (a pole: its parameter there is arbitrary), and the period of each periodic direction.
struct EntityParameters {
    std::unordered_map<std::size_t, Parameters> at;
    std::unordered_map<std::size_t, int> degenerate;  ///< the direction (0: u, 1: v), poles only
    Parameters period{0, 0};
};

EntityParameters entity_parameters(int dim, int tag)
{
    EntityParameters out;
    std::vector<std::size_t> tags;
    std::vector<double> coordinates, parameters;
    gmsh::model::mesh::getNodes(tags, coordinates, parameters, dim, tag, true, true);
    if (parameters.size() != tags.size() * static_cast<std::size_t>(dim)) return out;
    out.at.reserve(tags.size());
    for (std::size_t i = 0; i < tags.size(); ++i)
        out.at[tags[i]] = {parameters[i * dim], dim == 2 ? parameters[i * dim + 1] : 0.0};
    if (dim == 2) {
        const std::vector<int> degenerate = degenerate_directions(dim, tag, parameters);
        for (std::size_t i = 0; i < degenerate.size(); ++i)
            if (degenerate[i] == 0 || degenerate[i] == 1) out.degenerate[tags[i]] = degenerate[i];
    }
    out.period = parametrisation_periods(dim, tag);
    return out;
}

/// The parameters pa of node a and pb of node b on the entity, made ready for interpolation:
/// a periodic direction taken the short way round; at a pole, its arbitrary direction taken
/// from the other node (as Gmsh does). known: false where both are poles.
std::array<Parameters, 2> edge_parameters(const EntityParameters& entity, std::size_t a, Parameters pa, std::size_t b,
                                          Parameters pb, char& known)
{
    const auto pole_a = entity.degenerate.find(a), pole_b = entity.degenerate.find(b);
    const bool at_a = pole_a != entity.degenerate.end(), at_b = pole_b != entity.degenerate.end();
    if (at_a && at_b) known = 0;
    if (at_a && !at_b) pa[static_cast<std::size_t>(pole_a->second)] = pb[static_cast<std::size_t>(pole_a->second)];
    if (at_b && !at_a) pb[static_cast<std::size_t>(pole_b->second)] = pa[static_cast<std::size_t>(pole_b->second)];
    for (std::size_t d = 0; d < 2; ++d)
        if (entity.period[d] > 0) pb[d] -= entity.period[d] * std::round((pb[d] - pa[d]) / entity.period[d]);
    return {pa, pb};
}

/// The points of the entity closest to the edges' straight midpoints (Gmsh's placement of a
/// second-order node: on a circle or cylinder the arc's midpoint, on a sphere the great
/// circle's), from the mean of the ends' parameters (start, end: dim values each) by
/// Gauss-Newton steps on |x(p) - m|^2 in the parameters, all edges of the entity at once.
/// Their parameters into `parameters`, the points into `points` (empty when Gmsh evaluates
/// nothing).
void closest_points(int dim, int tag, const std::vector<double>& start, const std::vector<double>& end,
                    const std::vector<double>& straight, std::vector<double>& parameters, std::vector<double>& points)
{
    const std::size_t n = straight.size() / 3, per = static_cast<std::size_t>(dim);
    parameters.resize(n * per);
    for (std::size_t k = 0; k < n * per; ++k) parameters[k] = 0.5 * (start[k] + end[k]);
    std::vector<double> derivatives;
    for (int step = 0; step < 6; ++step) {
        gmsh::model::getValue(dim, tag, parameters, points);
        if (points.size() != 3 * n || step == 5) break;
        gmsh::model::getDerivative(dim, tag, parameters, derivatives);
        if (derivatives.size() != 3 * per * n) break;
        bool moved = false;
        for (std::size_t k = 0; k < n; ++k) {
            const double* r0 = &points[3 * k];
            const double* m = &straight[3 * k];
            const double* du = &derivatives[3 * per * k];
            const double* dv = dim == 2 ? du + 3 : du;
            double r[3], guu = 0, guv = 0, gvv = 0, bu = 0, bv = 0;
            for (int c = 0; c < 3; ++c) {
                r[c] = r0[c] - m[c];
                guu += du[c] * du[c], guv += du[c] * dv[c], gvv += dv[c] * dv[c];
                bu += du[c] * r[c], bv += dv[c] * r[c];
            }
            double step_u = 0, step_v = 0;
            if (dim == 1) {
                step_u = guu > 0 ? -bu / guu : 0.0;
            } else {
                const double det = guu * gvv - guv * guv;
                if (det <= 1e-14 * guu * gvv) continue;  // a pole: keep the mean parameters
                step_u = -(gvv * bu - guv * bv) / det;
                step_v = -(guu * bv - guv * bu) / det;
            }
            parameters[k * per] += step_u;
            if (dim == 2) parameters[k * per + 1] += step_v;
            moved = moved || std::abs(step_u) + std::abs(step_v) > 1e-15 * (1 + std::abs(parameters[k * per]));
        }
        if (!moved) {
            gmsh::model::getValue(dim, tag, parameters, points);
            break;
        }
    }
}

/// The node coordinates of the model, by tag.
class NodeCoordinates {
public:
    explicit NodeCoordinates(const std::vector<EntityMesh>& entities)
    {
        std::size_t largest = 0;
        for (const EntityMesh& e : entities)
            for (const std::size_t n : e.nodes) largest = std::max(largest, n);
        xyz_.assign(3 * (largest + 1), 0.0);
        for (const EntityMesh& e : entities)
            for (std::size_t i = 0; i < e.nodes.size(); ++i) std::copy_n(&e.coordinates[3 * i], 3, &xyz_[3 * e.nodes[i]]);
        next_tag_ = largest + 1;
    }
    const double* operator[](std::size_t tag) const { return &xyz_[3 * tag]; }
    std::size_t take_tag() { return next_tag_++; }

private:
    std::vector<double> xyz_;
    std::size_t next_tag_ = 1;
};

/// The midpoint nodes of one entity's edges that no lower-dimensional entity made: on a curve
/// or surface with parameters, the entity at the ends' mean parameters (or the straight
/// midpoint projected onto it where that lands farther than a quarter of the edge from the
/// straight midpoint); else the straight midpoint.
void add_midpoints(EntityMesh& e, NodeCoordinates& xyz, std::unordered_map<EdgeKey, std::size_t, EdgeHash>& made)
{
    const int type = second_order_type[static_cast<std::size_t>(e.dim)];
    const std::vector<std::array<int, 2>> edges = edge_corners(type);
    const std::size_t corners = static_cast<std::size_t>(e.dim + 1);
    const bool parametric = e.has_parameters;
    const EntityParameters parameters = parametric ? entity_parameters(e.dim, e.tag) : EntityParameters{};
    std::vector<double> straight, lengths, start, end;
    std::vector<char> known;
    for (std::size_t first = 0; first + corners <= e.element_nodes.size(); first += corners)
        for (const auto& [i, j] : edges) {
            const std::size_t a = e.element_nodes[first + static_cast<std::size_t>(i)];
            const std::size_t b = e.element_nodes[first + static_cast<std::size_t>(j)];
            const auto [slot, fresh] = made.try_emplace(edge_key(a, b), 0);
            if (!fresh) continue;
            slot->second = xyz.take_tag();
            e.new_nodes.push_back(slot->second);
            for (int c = 0; c < 3; ++c) straight.push_back(0.5 * (xyz[a][c] + xyz[b][c]));
            lengths.push_back(std::hypot(xyz[a][0] - xyz[b][0], xyz[a][1] - xyz[b][1], xyz[a][2] - xyz[b][2]));
            if (!parametric) continue;
            const auto pa = parameters.at.find(a), pb = parameters.at.find(b);
            known.push_back(pa != parameters.at.end() && pb != parameters.at.end());
            std::array<Parameters, 2> ends{};
            if (known.back()) ends = edge_parameters(parameters, a, pa->second, b, pb->second, known.back());
            start.insert(start.end(), ends[0].begin(), ends[0].begin() + e.dim);
            end.insert(end.end(), ends[1].begin(), ends[1].begin() + e.dim);
        }
    e.new_coordinates = straight;
    if (!parametric) return;
    std::vector<double> points;
    if (!start.empty()) closest_points(e.dim, e.tag, start, end, straight, e.new_parameters, points);
    std::vector<std::size_t> off;  // the midpoints to project
    std::vector<double> off_points;
    for (std::size_t k = 0; k < e.new_nodes.size(); ++k) {
        const double* p = points.size() == straight.size() ? &points[3 * k] : nullptr;
        const bool near = known[k] && p != nullptr &&
                          std::hypot(p[0] - straight[3 * k], p[1] - straight[3 * k + 1], p[2] - straight[3 * k + 2]) <=
                              0.25 * lengths[k];
        if (near) {
            std::copy_n(p, 3, &e.new_coordinates[3 * k]);
            continue;
        }
        off.push_back(k);
        off_points.insert(off_points.end(), &straight[3 * k], &straight[3 * k] + 3);
    }
    if (off.empty()) return;
    std::vector<double> closest, closest_parameters;
    gmsh::model::getClosestPoint(e.dim, e.tag, off_points, closest, closest_parameters);
    if (closest.size() != off_points.size() || closest_parameters.size() != off.size() * static_cast<std::size_t>(e.dim))
        throw std::runtime_error("make_second_order: Gmsh projected no point onto entity (" + std::to_string(e.dim) +
                                 ", " + std::to_string(e.tag) + ")");
    for (std::size_t i = 0; i < off.size(); ++i) {
        std::copy_n(&closest[3 * i], 3, &e.new_coordinates[3 * off[i]]);
        std::copy_n(&closest_parameters[static_cast<std::size_t>(e.dim) * i], e.dim,
                    &e.new_parameters[static_cast<std::size_t>(e.dim) * off[i]]);
    }
}

/// The order-2 elements' node tags of an entity: each element's corners, then its edges'
/// midpoints in Gmsh's order.
std::vector<std::size_t> second_order_nodes(const EntityMesh& e,
                                            const std::unordered_map<EdgeKey, std::size_t, EdgeHash>& made)
{
    const std::vector<std::array<int, 2>> edges = edge_corners(second_order_type[static_cast<std::size_t>(e.dim)]);
    const std::size_t corners = static_cast<std::size_t>(e.dim + 1);
    std::vector<std::size_t> out;
    out.reserve(e.element_nodes.size() / corners * (corners + edges.size()));
    for (std::size_t first = 0; first + corners <= e.element_nodes.size(); first += corners) {
        out.insert(out.end(), e.element_nodes.begin() + static_cast<long>(first),
                   e.element_nodes.begin() + static_cast<long>(first + corners));
        for (const auto& [i, j] : edges)
            out.push_back(made.at(edge_key(e.element_nodes[first + static_cast<std::size_t>(i)],
                                           e.element_nodes[first + static_cast<std::size_t>(j)])));
    }
    return out;
}

}  // namespace

bool own_second_order_applies()
{
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types);
    if (types.empty()) return false;
    return std::all_of(types.begin(), types.end(), [](int t) {
        return std::find(first_order_type.begin(), first_order_type.end(), t) != first_order_type.end();
    });
}

void make_second_order()
{
    StageLaps laps;
    std::vector<EntityMesh> entities = read_model_mesh();
    NodeCoordinates xyz(entities);
    laps.lap("read");
    std::unordered_map<EdgeKey, std::size_t, EdgeHash> made;
    std::size_t cells = 0;
    for (const EntityMesh& e : entities) cells += e.dim >= 2 ? e.elements.size() : 0;
    made.reserve(2 * cells);  // about 1.2 edges a tetrahedron, 1.5 a triangle
    // Curves first, then surfaces, then volumes: an edge belongs to the lowest entity it lies in.
    for (int dim = 1; dim <= 3; ++dim) {
        for (EntityMesh& e : entities)
            if (e.dim == dim) add_midpoints(e, xyz, made);
        laps.lap(dim == 1 ? "curves' edges" : dim == 2 ? "surfaces' edges" : "volumes' edges");
    }
    gmsh::model::mesh::clear();
    laps.lap("cleared");
    for (const EntityMesh& e : entities) {
        std::vector<std::size_t> tags = e.nodes;
        tags.insert(tags.end(), e.new_nodes.begin(), e.new_nodes.end());
        std::vector<double> coordinates = e.coordinates, parameters = e.parameters;
        coordinates.insert(coordinates.end(), e.new_coordinates.begin(), e.new_coordinates.end());
        parameters.insert(parameters.end(), e.new_parameters.begin(), e.new_parameters.end());
        if (!tags.empty()) gmsh::model::mesh::addNodes(e.dim, e.tag, tags, coordinates, parameters);
    }
    laps.lap("nodes added");
    for (const EntityMesh& e : entities)
        if (!e.elements.empty())
            gmsh::model::mesh::addElementsByType(e.tag, second_order_type[static_cast<std::size_t>(e.dim)], e.elements,
                                                 e.dim == 0 ? e.element_nodes : second_order_nodes(e, made));
    laps.lap("elements added");
    spdlog::debug("second-order mesh: {} edge nodes: {}", made.size(), laps.text);
}

}  // namespace gpufem
