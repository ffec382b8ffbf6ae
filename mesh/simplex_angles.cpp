#include "mesh/simplex_angles.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace gpufem {
namespace {

using Point = std::array<double, 3>;

/// The position of corner k of cell c.
Point corner(const Mesh& mesh, long long c, int k)
{
    const index_type node = mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + k];
    const double* x = &mesh.node_coordinates()[3 * static_cast<std::size_t>(node)];
    return {x[0], x[1], x[2]};
}

/// a - b.
Point minus(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

/// a . b.
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// The angle between two vectors in degrees (0 when one of them vanishes).
double angle_between(const Point& a, const Point& b)
{
    const double lengths = std::sqrt(dot(a, a) * dot(b, b));
    if (!(lengths > 0)) return 0;
    return std::acos(std::clamp(dot(a, b) / lengths, -1.0, 1.0)) * 180.0 / std::numbers::pi;
}

/// The part of v perpendicular to the unit vector u.
Point perpendicular(const Point& v, const Point& u)
{
    const double along = dot(v, u);
    return {v[0] - along * u[0], v[1] - along * u[1], v[2] - along * u[2]};
}

/// The dihedral angle at edge a-b of the tetrahedron a b c d: the angle between c and d seen
/// along the edge.
double dihedral_angle(const Point& a, const Point& b, const Point& c, const Point& d)
{
    const Point edge = minus(b, a);
    const double length = std::sqrt(dot(edge, edge));
    if (!(length > 0)) return 0;
    const Point u{edge[0] / length, edge[1] / length, edge[2] / length};
    return angle_between(perpendicular(minus(c, a), u), perpendicular(minus(d, a), u));
}

/// The range of angles(c, lo, hi) over the cells of `type` (each cell lowers lo and raises hi).
template <typename CellAngles>
AngleRange angle_range(const Mesh& mesh, ElementType type, CellAngles&& angles)
{
    AngleRange out;
    if (!mesh.has_cells_of(type)) return out;
    const long long n = mesh.num_cells();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    long long cells = 0;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(+ : cells) schedule(static)
    for (long long c = 0; c < n; ++c) {
        if (mesh.type_of_cell(static_cast<index_type>(c)) != type) continue;
        angles(c, lo, hi);
        ++cells;
    }
    out.cells = cells;
    out.min = lo;
    out.max = hi;
    return out;
}

}  // namespace

AngleRange triangle_angles(const Mesh& mesh)
{
    return angle_range(mesh, ElementType::triangle, [&](long long c, double& lo, double& hi) {
        const Point p[3] = {corner(mesh, c, 0), corner(mesh, c, 1), corner(mesh, c, 2)};
        for (int k = 0; k < 3; ++k) {
            const double angle = angle_between(minus(p[(k + 1) % 3], p[k]), minus(p[(k + 2) % 3], p[k]));
            lo = std::min(lo, angle);
            hi = std::max(hi, angle);
        }
    });
}

AngleRange tetrahedron_dihedral_angles(const Mesh& mesh)
{
    // Each edge (a, b) of the tetrahedron with the two corners (c, d) off it.
    static constexpr int edges[6][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2},
                                        {1, 2, 0, 3}, {1, 3, 0, 2}, {2, 3, 0, 1}};
    return angle_range(mesh, ElementType::tetrahedron, [&](long long c, double& lo, double& hi) {
        const Point p[4] = {corner(mesh, c, 0), corner(mesh, c, 1), corner(mesh, c, 2), corner(mesh, c, 3)};
        for (const auto& e : edges) {
            const double angle = dihedral_angle(p[e[0]], p[e[1]], p[e[2]], p[e[3]]);
            lo = std::min(lo, angle);
            hi = std::max(hi, angle);
        }
    });
}

}  // namespace gpufem
