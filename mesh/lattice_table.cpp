#include "mesh/lattice_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "mesh/gll_points.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// Highest order Gmsh's node order is read for (boxes: their highest degree); higher lattices
/// (refinement of order 3-4 simplices, prisms and pyramids) are enumerated lexicographically,
/// as only gpufem reads them.
constexpr int highest_gmsh_order = 4;

/// Whether the lattice of order m is in Gmsh's node order.
bool gmsh_ordered(ElementType type, int m)
{
    const ShapeTraits& shape = cell_shape(type);
    return m <= highest_gmsh_order || (shape.box && m <= shape.max_degree);
}

bool is_simplex(ElementType type) { return cell_shape(type).simplex; }

/// The integer coordinates of each vertex of the shape at lattice order m, in Gmsh's vertex
/// order (the shape's lattice corners times m).
std::vector<std::array<int, 3>> vertex_coordinates(ElementType type, int m)
{
    std::vector<std::array<int, 3>> corners;
    for (const LatticeVector& corner : cell_shape(type).lattice_corners)
        corners.push_back({m * corner[0], m * corner[1], m * corner[2]});
    return corners;
}

/// Whether reference axis i of the shape is the lattice's times 1/m (simplices, the pyramid,
/// the prism's triangle) rather than [-1, 1] for [0, m] (boxes, the prism's height).
bool unit_axis(ElementType type, int i) { return !cell_shape(type).symmetric_axes[static_cast<std::size_t>(i)]; }

/// A reference coordinate of a Gmsh node times the order, as the integer lattice coordinate.
int lattice_coordinate(double x)
{
    const int at = static_cast<int>(std::lround(x));
    if (std::abs(x - at) > 1e-9) throw std::logic_error("lattice_points: a Lagrange node off the lattice");
    return at;
}

/// The lattice points of order m in Gmsh's node order (gmsh_ordered) or lexicographically.
std::vector<std::array<int, 3>> lattice_points(ElementType type, int m)
{
    const int dim = element_dimension(type);
    std::vector<std::array<int, 3>> points;
    if (gmsh_ordered(type, m)) {
        const std::vector<double> reference = equispaced_reference_nodes(type, m);
        for (std::size_t q = 0; q < reference.size() / dim; ++q) {
            std::array<int, 3> at{0, 0, 0};
            for (int i = 0; i < dim; ++i) {
                const double u = reference[q * dim + i];
                at[i] = lattice_coordinate(unit_axis(type, i) ? m * u : m * (u + 1.0) / 2.0);
            }
            points.push_back(at);
        }
        return points;
    }
    if (type == ElementType::prism || type == ElementType::pyramid) {
        for (int z = 0; z <= m; ++z)
            for (int y = 0; y <= m; ++y)
                for (int x = 0; x <= m; ++x) {
                    if (type == ElementType::prism && x + y <= m) points.push_back({x, y, z});
                    const int n = m - z;  // the pyramid's layer z: (n + 1)^2 points
                    if (type == ElementType::pyramid && x <= n && y <= n)
                        points.push_back({2 * x - n, 2 * y - n, z});
                }
        return points;
    }
    const int nz = dim == 3 ? m : 0, ny = dim >= 2 ? m : 0;
    for (int z = 0; z <= nz; ++z)
        for (int y = 0; y <= ny; ++y)
            for (int x = 0; x <= m; ++x)
                if (!is_simplex(type) || x + y + z <= m) points.push_back({x, y, z});
    return points;
}

/// The barycentric integer weights of a simplex point (w_0 = m - sum, w_i = x_{i-1}).
std::vector<int> weights(const std::array<int, 3>& at, int dim, int m)
{
    std::vector<int> w(static_cast<std::size_t>(dim + 1));
    w[0] = m;
    for (int i = 0; i < dim; ++i) {
        w[static_cast<std::size_t>(i + 1)] = at[i];
        w[0] -= at[i];
    }
    return w;
}

/// Every edge and 2D face of the shape (local vertices; faces cyclic), from its table.
void shape_entities(ElementType type, LatticeTable& table)
{
    const ShapeTraits& shape = cell_shape(type);
    table.edges.assign(shape.edges.begin(), shape.edges.end());
    table.faces.assign(shape.faces.begin(), shape.faces.end());
}

/// Describes one point of a simplex: its support (vertices with a positive weight).
LatticePoint simplex_point(const LatticeTable& table, const std::array<int, 3>& at, int dim, int m)
{
    const std::vector<int> w = weights(at, dim, m);
    std::vector<int> support;
    for (int i = 0; i <= dim; ++i)
        if (w[static_cast<std::size_t>(i)] > 0) support.push_back(i);
    LatticePoint point;
    point.dim = static_cast<int>(support.size()) - 1;
    if (point.dim == 0) {
        point.entity = support[0];
    } else if (point.dim == 1) {
        point.entity = table.edge_between(support[0], support[1]);
        point.s = w[static_cast<std::size_t>(table.edges[point.entity][1])];
    } else if (point.dim == 2) {
        for (std::size_t f = 0; f < table.faces.size(); ++f)
            if (table.faces[f][0] == support[0] && table.faces[f][1] == support[1] &&
                table.faces[f][2] == support[2])
                point.entity = static_cast<int>(f);
        point.s = w[static_cast<std::size_t>(support[1])];
        point.t = w[static_cast<std::size_t>(support[2])];
    }
    return point;
}

/// Describes one point of a box: its free axes (strictly inside [0, m]).
LatticePoint box_point(const LatticeTable& table, const std::array<int, 3>& at, int dim, int m)
{
    const auto corners = vertex_coordinates(table.type, 1);
    const auto corner_at = [&](const std::array<int, 3>& c) {
        return static_cast<int>(std::find(corners.begin(), corners.end(), c) - corners.begin());
    };
    std::vector<int> free;
    std::array<int, 3> low{0, 0, 0};  // the nearest corner below, in box units
    for (int i = 0; i < dim; ++i) {
        if (at[i] > 0 && at[i] < m) free.push_back(i);
        else low[i] = at[i] == m ? 1 : 0;
    }
    LatticePoint point;
    point.dim = static_cast<int>(free.size());
    if (point.dim == 0) {
        point.entity = corner_at(low);
    } else if (point.dim == 1) {
        const int p = free[0];
        std::array<int, 3> high = low;
        high[p] = 1;
        const int a = corner_at(low), b = corner_at(high);
        point.entity = table.edge_between(a, b);
        point.s = table.edges[point.entity][0] == a ? at[p] : m - at[p];
    } else if (point.dim == 2) {
        const int p = free[0], q = free[1];
        // The face whose corner 0 is `low` with p and q free: built so by shape_entities.
        for (std::size_t f = 0; f < table.faces.size(); ++f)
            if (table.faces[f][0] == corner_at(low)) {
                std::array<int, 3> along_p = low, along_q = low;
                along_p[p] = 1;
                along_q[q] = 1;
                if (table.faces[f][1] == corner_at(along_p) && table.faces[f][3] == corner_at(along_q))
                    point.entity = static_cast<int>(f);
            }
        point.s = at[p];
        point.t = at[q];
    }
    return point;
}

/// Describes one point of a prism or pyramid by where it lies in the scaled reference shape
/// (vertex_coordinates, affine to the reference coordinates): on a vertex, inside an edge
/// (steps from its first vertex), inside a face (a triangle's weights of its vertices 1 and
/// 2; a quadrilateral's steps from its vertex 0 toward vertices 1 and 3), or inside.
LatticePoint solid_point(const LatticeTable& table, const std::array<int, 3>& at, int m)
{
    const auto v = vertex_coordinates(table.type, m);
    using Vec = std::array<double, 3>;
    const auto vec = [](const std::array<int, 3>& a) { return Vec{double(a[0]), double(a[1]), double(a[2])}; };
    const auto sub = [](const Vec& a, const Vec& b) { return Vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]}; };
    const auto dot = [](const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
    const Vec p = vec(at);
    const auto steps = [&](double fraction) { return static_cast<int>(std::lround(fraction * m)); };
    // p = a + s (b - a) + t (c - a): (s, t) by least squares, and whether p lies there.
    const auto in_plane = [&](const Vec& a, const Vec& b, const Vec& c, double& s, double& t) {
        const Vec e = sub(b, a), f = sub(c, a), d = sub(p, a);
        const double ee = dot(e, e), ef = dot(e, f), ff = dot(f, f), de = dot(d, e), df = dot(d, f);
        const double det = ee * ff - ef * ef;
        s = (de * ff - df * ef) / det;
        t = (df * ee - de * ef) / det;
        const Vec r = sub(d, Vec{s * e[0] + t * f[0], s * e[1] + t * f[1], s * e[2] + t * f[2]});
        return dot(r, r) < 1e-18;
    };
    constexpr double inside = 1e-12;
    LatticePoint point;
    for (std::size_t k = 0; k < v.size(); ++k)
        if (v[k] == at) {
            point.dim = 0;
            point.entity = static_cast<int>(k);
            return point;
        }
    for (std::size_t e = 0; e < table.edges.size(); ++e) {
        const Vec a = vec(v[table.edges[e][0]]), b = vec(v[table.edges[e][1]]);
        const Vec d = sub(p, a), along = sub(b, a);
        const double s = dot(d, along) / dot(along, along);
        const Vec r = sub(d, Vec{s * along[0], s * along[1], s * along[2]});
        if (dot(r, r) < 1e-18 && s > inside && s < 1 - inside) {
            point.dim = 1;
            point.entity = static_cast<int>(e);
            point.s = steps(s);
            return point;
        }
    }
    for (std::size_t f = 0; f < table.faces.size(); ++f) {
        const auto& face = table.faces[f];
        const bool quadrilateral = face[3] >= 0;
        double s = 0, t = 0;
        if (!in_plane(vec(v[face[0]]), vec(v[face[1]]), vec(v[quadrilateral ? face[3] : face[2]]), s, t)) continue;
        const bool within = quadrilateral ? s > inside && s < 1 - inside && t > inside && t < 1 - inside
                                          : s > inside && t > inside && s + t < 1 - inside;
        if (!within) continue;
        point.dim = 2;
        point.entity = static_cast<int>(f);
        point.s = steps(s);
        point.t = steps(t);
        return point;
    }
    point.dim = 3;
    return point;
}

LatticeTable build_table(ElementType type, int m)
{
    LatticeTable table;
    table.type = type;
    table.order = m;
    shape_entities(type, table);
    const ShapeTraits& shape = cell_shape(type);
    const int dim = shape.dim;
    table.coordinates = lattice_points(type, m);
    for (const auto& at : table.coordinates) {
        // Prisms and pyramids (neither simplex nor box) by where the point lies in the shape.
        LatticePoint point = !shape.simplex && !shape.box      ? solid_point(table, at, m)
                             : shape.simplex || shape.dim == 1 ? simplex_point(table, at, dim, m)
                                                               : box_point(table, at, dim, m);
        if (point.dim == dim) {
            point.interior = table.interior_points++;
            if (dim == 3) point.entity = 0;
        }
        table.points.push_back(point);
    }
    return table;
}

/// The three diagonals of a tetrahedron's inner octahedron, as the two opposite edges whose
/// midpoints they join (01-23, 02-13, 03-12): RefinementPattern's patterns, in this order.
constexpr int octahedron_diagonals[3][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}};

std::array<int, 3> plus(const std::array<int, 3>& a, const std::array<int, 3>& b)
{
    return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
std::array<int, 3> scaled(int s, const std::array<int, 3>& a) { return {s * a[0], s * a[1], s * a[2]}; }

RefinementPattern build_pattern(ElementType type, int g)
{
    RefinementPattern pattern;
    pattern.type = type;
    pattern.order = g;
    const LatticeTable& parent = lattice_table(type, 2 * g);
    const ShapeTraits& shape = cell_shape(type);
    const int dim = shape.dim;
    for (int p = 0; p < shape.refinement_patterns; ++p) {
        std::vector<std::vector<int>> children;
        for (const LatticeFrame& frame : shape.pattern_children(p)) {
            const ElementType child_type = frame.type == ElementType::line ? type : frame.type;
            const LatticeTable& child = lattice_table(child_type, g);
            if (p == 0) pattern.child_types.push_back(child_type);
            std::vector<int> nodes;
            for (const auto& at : child.coordinates) {
                // Child point at (integer coordinates of order g) -> g corner + sum at_i edge_i
                // in the parent's lattice of order 2g; every shape's lattice coordinates are
                // affine in the reference coordinates (LatticeTable::coordinates).
                std::array<int, 3> point = scaled(g, frame.corner);
                for (int i = 0; i < dim; ++i) point = plus(point, scaled(at[i], frame.edges[i]));
                const int index = parent.point_at(point);
                if (index < 0) throw std::logic_error("build_pattern: a child node off the parent's lattice");
                nodes.push_back(index);
            }
            children.push_back(nodes);
        }
        pattern.children.push_back(children);
        if (type == ElementType::tetrahedron) {
            const int* d = octahedron_diagonals[p];
            const auto corners = vertex_coordinates(type, 2 * g);
            const auto mid = [&](int a, int b) {
                const auto s = plus(corners[a], corners[b]);
                return parent.point_at({s[0] / 2, s[1] / 2, s[2] / 2});
            };
            pattern.diagonals.push_back({mid(d[0], d[1]), mid(d[2], d[3])});
        }
    }
    return pattern;
}

}  // namespace

std::vector<double> lattice_reference_point(ElementType type, const std::array<int, 3>& at, int m)
{
    const int dim = element_dimension(type);
    std::vector<double> reference;
    for (int i = 0; i < dim; ++i) {
        const double u = static_cast<double>(at[i]) / m;
        reference.push_back(unit_axis(type, i) ? u : 2.0 * u - 1.0);
    }
    return reference;
}

std::vector<double> element_reference_point(ElementType type, const std::array<int, 3>& at, int m)
{
    if (!has_gll_nodes(type, m)) return lattice_reference_point(type, at, m);
    const std::vector<double> line = gll_points(m + 1);
    std::vector<double> reference;
    for (int i = 0; i < element_dimension(type); ++i) reference.push_back(line[static_cast<std::size_t>(at[i])]);
    return reference;
}

int LatticeTable::edge_between(int a, int b) const
{
    for (std::size_t e = 0; e < edges.size(); ++e)
        if ((edges[e][0] == a && edges[e][1] == b) || (edges[e][0] == b && edges[e][1] == a))
            return static_cast<int>(e);
    return -1;
}

int LatticeTable::point_at(const std::array<int, 3>& at) const
{
    const auto found = std::find(coordinates.begin(), coordinates.end(), at);
    return found == coordinates.end() ? -1 : static_cast<int>(found - coordinates.begin());
}

int LatticeTable::face_points(bool quadrilateral) const
{
    return quadrilateral ? (order - 1) * (order - 1) : (order - 1) * (order - 2) / 2;
}

const LatticeTable& lattice_table(ElementType type, int m)
{
    if (m < 1 || m > 2 * highest_gmsh_order)
        throw std::invalid_argument("lattice_table: order " + std::to_string(m) + " outside 1..8");
    static std::mutex mutex;
    static std::map<std::pair<int, int>, std::unique_ptr<LatticeTable>> tables;
    const std::lock_guard lock(mutex);
    auto& slot = tables[{static_cast<int>(type), m}];
    if (!slot) slot = std::make_unique<LatticeTable>(build_table(type, m));
    return *slot;
}

const RefinementPattern& refinement_pattern(ElementType type, int g)
{
    if (g < 1 || g > highest_gmsh_order)
        throw std::invalid_argument("refinement_pattern: order " + std::to_string(g) + " outside 1..4");
    static std::mutex mutex;
    static std::map<std::pair<int, int>, std::unique_ptr<RefinementPattern>> patterns;
    // lattice_table takes its own lock; build outside ours would race, so hold ours only
    // around the map (building twice is harmless: the first stored wins).
    {
        const std::lock_guard lock(mutex);
        const auto found = patterns.find({static_cast<int>(type), g});
        if (found != patterns.end()) return *found->second;
    }
    auto built = std::make_unique<RefinementPattern>(build_pattern(type, g));
    const std::lock_guard lock(mutex);
    auto& slot = patterns[{static_cast<int>(type), g}];
    if (!slot) slot = std::move(built);
    return *slot;
}

}  // namespace gpufem
