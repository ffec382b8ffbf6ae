#include "mesh/hanging_nodes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "mesh/cell_description.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

using Point = std::array<double, 3>;

Point position(const Mesh& mesh, index_type node)
{
    const double* x = &mesh.node_coordinates()[3 * static_cast<std::size_t>(node)];
    return {x[0], x[1], x[2]};
}

Point minus(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Point cross(const Point& a, const Point& b)
{
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

/// Whether p lies on the segment a b (within tol) strictly between its ends.
bool on_segment(const Point& p, const Point& a, const Point& b, double tol)
{
    const Point ab = minus(b, a), ap = minus(p, a);
    const double length2 = dot(ab, ab);
    if (length2 <= 0) return false;
    const double t = dot(ap, ab) / length2;
    const Point off = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    const double along = t * std::sqrt(length2), length = std::sqrt(length2);
    return dot(off, off) <= tol * tol && along > tol && along < length - tol;
}

/// Whether p lies in the triangle a b c or on its sides (within tol; sides at most `size`).
bool on_triangle(const Point& p, const Point& a, const Point& b, const Point& c, double tol, double size)
{
    const Point n = cross(minus(b, a), minus(c, a));
    const double twice_area = std::sqrt(dot(n, n));
    if (twice_area <= 0) return false;
    if (std::abs(dot(minus(p, a), n)) > tol * twice_area) return false;
    // Barycentric coordinates of p's projection: -tol / (a corner's height) is tol off a side.
    const Point pa = minus(a, p), pb = minus(b, p), pc = minus(c, p);
    const double la = dot(cross(pb, pc), n) / (twice_area * twice_area);
    const double lb = dot(cross(pc, pa), n) / (twice_area * twice_area);
    const double lc = dot(cross(pa, pb), n) / (twice_area * twice_area);
    const double slack = 2 * tol * size / twice_area;
    return la >= -slack && lb >= -slack && lc >= -slack;
}

/// The boundary face slots and the distinct nodes of their faces.
struct BoundaryFaces {
    std::vector<long long> slots;
    std::vector<index_type> nodes;
    double mean_size = 0;  ///< the faces' mean longest side
};

BoundaryFaces boundary_faces(const Mesh& mesh, const FaceSlots& faces)
{
    BoundaryFaces out;
    std::vector<char> seen(static_cast<std::size_t>(mesh.num_nodes()), 0);
    const long long slots = static_cast<long long>(faces.neighbour.size());
    double total = 0;
    for (long long s = 0; s < slots; ++s) {
        if (!faces.is_boundary(s)) continue;
        out.slots.push_back(s);
        index_type nodes[4];
        const int n = faces.face_nodes(s, nodes);
        double longest = 0;
        for (int k = 0; k < n; ++k) {
            const Point side = minus(position(mesh, nodes[(k + 1) % n]), position(mesh, nodes[k]));
            longest = std::max(longest, std::sqrt(dot(side, side)));
            if (!seen[static_cast<std::size_t>(nodes[k])]) {
                seen[static_cast<std::size_t>(nodes[k])] = 1;
                out.nodes.push_back(nodes[k]);
            }
        }
        total += longest;
    }
    out.mean_size = out.slots.empty() ? 0 : total / static_cast<double>(out.slots.size());
    return out;
}

/// The boundary nodes hashed into a grid of boxes of side h: keys sorted with their nodes.
struct NodeGrid {
    Point origin{};
    double h = 1;
    std::vector<std::pair<std::uint64_t, index_type>> entries;

    /// The box of coordinate x along d (0 below the boundary nodes' lowest).
    std::int64_t box(double x, int d) const
    {
        return std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor((x - origin[d]) / h)));
    }
    static std::uint64_t key(std::int64_t i, std::int64_t j, std::int64_t k)
    {
        return (static_cast<std::uint64_t>(i) << 42) | (static_cast<std::uint64_t>(j) << 21) | static_cast<std::uint64_t>(k);
    }
};

NodeGrid node_grid(const Mesh& mesh, const BoundaryFaces& boundary)
{
    NodeGrid grid;
    Point low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
    for (const index_type v : boundary.nodes)
        for (int d = 0; d < 3; ++d) {
            low[d] = std::min(low[d], position(mesh, v)[d]);
            high[d] = std::max(high[d], position(mesh, v)[d]);
        }
    grid.origin = low;
    const double extent = std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2]});
    // At most 2^20 boxes a direction (keys of 21 bits), and never below the faces' mean size.
    grid.h = std::max({boundary.mean_size, extent / double(1 << 20), 1e-300});
    grid.entries.reserve(boundary.nodes.size());
    for (const index_type v : boundary.nodes) {
        const Point x = position(mesh, v);
        grid.entries.emplace_back(NodeGrid::key(grid.box(x[0], 0), grid.box(x[1], 1), grid.box(x[2], 2)), v);
    }
    std::sort(grid.entries.begin(), grid.entries.end());
    return grid;
}

/// A node other than the face's corners lying on boundary face slot s, or -1.
index_type node_on_face(const Mesh& mesh, const FaceSlots& faces, const NodeGrid& grid, long long s)
{
    index_type corner[4];
    const int n = faces.face_nodes(s, corner);
    Point p[4], low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
    double size = 0;
    for (int k = 0; k < n; ++k) {
        p[k] = position(mesh, corner[k]);
        for (int d = 0; d < 3; ++d) low[d] = std::min(low[d], p[k][d]), high[d] = std::max(high[d], p[k][d]);
    }
    for (int d = 0; d < 3; ++d) size = std::max(size, high[d] - low[d]);
    const double tol = 1e-7 * size;
    for (std::int64_t i = grid.box(low[0] - tol, 0); i <= grid.box(high[0] + tol, 0); ++i)
        for (std::int64_t j = grid.box(low[1] - tol, 1); j <= grid.box(high[1] + tol, 1); ++j)
            for (std::int64_t k = grid.box(low[2] - tol, 2); k <= grid.box(high[2] + tol, 2); ++k) {
                const std::uint64_t key = NodeGrid::key(i, j, k);
                auto it = std::lower_bound(grid.entries.begin(), grid.entries.end(), std::make_pair(key, index_type{-1}));
                for (; it != grid.entries.end() && it->first == key; ++it) {
                    const index_type v = it->second;
                    if (std::find(corner, corner + n, v) != corner + n) continue;
                    const Point x = position(mesh, v);
                    bool at_corner = false;
                    for (int c = 0; c < n; ++c) at_corner |= dot(minus(x, p[c]), minus(x, p[c])) <= tol * tol;
                    if (at_corner) continue;
                    const bool on = n == 2 ? on_segment(x, p[0], p[1], tol)
                                           : on_triangle(x, p[0], p[1], p[2], tol, 2 * size) ||
                                                 (n == 4 && on_triangle(x, p[0], p[2], p[3], tol, 2 * size));
                    if (on) return v;
                }
            }
    return -1;
}

}  // namespace

void check_hanging_nodes(const Mesh& mesh, const FaceSlots& faces)
{
    const BoundaryFaces boundary = boundary_faces(mesh, faces);
    if (boundary.slots.empty()) return;
    const NodeGrid grid = node_grid(mesh, boundary);
    const long long count = static_cast<long long>(boundary.slots.size());
    long long first = std::numeric_limits<long long>::max();
#pragma omp parallel for reduction(min : first) schedule(dynamic, 256)
    for (long long i = 0; i < count; ++i)
        if (node_on_face(mesh, faces, grid, boundary.slots[static_cast<std::size_t>(i)]) >= 0) first = std::min(first, i);
    if (first == std::numeric_limits<long long>::max()) return;
    const long long s = boundary.slots[static_cast<std::size_t>(first)];
    const index_type node = node_on_face(mesh, faces, grid, s);
    throw MeshSourceError(fmt::format(
        "mesh {} is not conforming: node {} at {} lies on {} {} of {} without being its corner (a "
        "hanging node: the cells on the two sides of that {} are not joined there); split the "
        "{} at the node, or remesh conforming",
        mesh.source, node, node_position_text(mesh, node), mesh.dim == 2 ? "edge" : "face",
        s % faces.faces_per_cell, cell_text(mesh, s / faces.faces_per_cell), mesh.dim == 2 ? "edge" : "face",
        mesh.dim == 2 ? "long edge's cell" : "large face's cell"));
}

}  // namespace gpufem
