#include "mesh/mesh_quality.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "mesh/cell_description.hpp"
#include "mesh/kernel_shapes.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

/// Area (2D) or volume of the ideal cell of each shape with longest edge 1, by ElementType:
/// the equilateral triangle, the square, the regular tetrahedron, the cube, the prism of
/// equilateral triangles and square sides, the pyramid of edges 1.
constexpr double ideal_measure[element_type_count] = {1.0, 0.4330127018922193, 1.0, 0.11785113019775792,
                                                      1.0, 0.4330127018922193, 0.23570226039551584};

/// A cell's corner positions.
struct Corners {
    double x[8][3];
    int n = 0;
};

Corners corners_of(const Mesh& mesh, const KernelShape& shape, long long c)
{
    Corners out;
    out.n = shape.corners;
    const index_type* row = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
    for (int k = 0; k < shape.corners; ++k)
        for (int d = 0; d < 3; ++d) out.x[k][d] = mesh.node_coordinates()[3 * static_cast<std::size_t>(row[k]) + d];
    return out;
}

double distance(const double* a, const double* b)
{
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/// The longest edge of a cell: 2D its faces, 3D the sides of its faces.
double longest_edge(const Corners& p, const KernelShape& shape)
{
    double longest = 0;
    for (int f = 0; f < shape.faces; ++f) {
        const int* fc = shape.face_corners[f];
        const int n = fc[2] < 0 ? 2 : (fc[3] < 0 ? 3 : 4);
        for (int k = 0; k < (n == 2 ? 1 : n); ++k) longest = std::max(longest, distance(p.x[fc[k]], p.x[fc[(k + 1) % n]]));
    }
    return longest;
}

/// |det(a - o, b - o, c - o)| / 6: the volume of the tetrahedron o a b c.
double tetrahedron_volume(const double* o, const double* a, const double* b, const double* c)
{
    const double u[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    const double v[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]};
    const double w[3] = {c[0] - o[0], c[1] - o[1], c[2] - o[2]};
    return std::abs(u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                    u[2] * (v[0] * w[1] - v[1] * w[0])) / 6;
}

/// A straight cell's area (2D: corners in cyclic order) or volume (3D: tetrahedra from the
/// corners' centre to its faces' triangles, a fan from each face's first corner).
double cell_measure(const Corners& p, const KernelShape& shape, int dim)
{
    if (dim == 2) {
        double twice = 0;
        for (int k = 0; k < p.n; ++k) {
            const double* a = p.x[k];
            const double* b = p.x[(k + 1) % p.n];
            twice += a[0] * b[1] - a[1] * b[0];
        }
        return std::abs(twice) / 2;
    }
    double centre[3] = {0, 0, 0};
    for (int k = 0; k < p.n; ++k)
        for (int d = 0; d < 3; ++d) centre[d] += p.x[k][d] / p.n;
    double volume = 0;
    for (int f = 0; f < shape.faces; ++f) {
        const int* fc = shape.face_corners[f];
        const int n = fc[3] < 0 ? 3 : 4;
        for (int k = 1; k + 1 < n; ++k) volume += tetrahedron_volume(centre, p.x[fc[0]], p.x[fc[k]], p.x[fc[k + 1]]);
    }
    return volume;
}

/// A simplex's longest edge and its area (2D) or volume: every pair of its corners is an edge.
double simplex_quality(const Corners& p, ElementType type)
{
    double squared = 0;  // the longest edge's square
    for (int a = 0; a < p.n; ++a)
        for (int b = a + 1; b < p.n; ++b) {
            const double d[3] = {p.x[a][0] - p.x[b][0], p.x[a][1] - p.x[b][1], p.x[a][2] - p.x[b][2]};
            squared = std::max(squared, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
    double measure = 0;
    if (type == ElementType::tetrahedron) {
        measure = tetrahedron_volume(p.x[0], p.x[1], p.x[2], p.x[3]);
    } else {
        const double u[2] = {p.x[1][0] - p.x[0][0], p.x[1][1] - p.x[0][1]};
        const double v[2] = {p.x[2][0] - p.x[0][0], p.x[2][1] - p.x[0][1]};
        measure = std::abs(u[0] * v[1] - u[1] * v[0]) / 2;
    }
    const double scale =
        ideal_measure[static_cast<int>(type)] * (type == ElementType::tetrahedron ? squared * std::sqrt(squared) : squared);
    return scale > 0 ? measure / scale : 0.0;
}

/// Cell c's quality: its area or volume against the ideal cell's of its shape with the same
/// longest edge (0 for a degenerate cell).
double cell_quality(const Mesh& mesh, const KernelShapes& shapes, long long c)
{
    const ElementType type = mesh.type_of_cell(static_cast<index_type>(c));
    const KernelShape& shape = shapes.of_type[static_cast<int>(type)];
    const Corners p = corners_of(mesh, shape, c);
    double q = 0;
    if (type == ElementType::tetrahedron || type == ElementType::triangle) {
        q = simplex_quality(p, type);
    } else {
        const double edge = longest_edge(p, shape);
        const double scale = ideal_measure[static_cast<int>(type)] * std::pow(edge, element_dimension(type));
        q = scale > 0 ? cell_measure(p, shape, element_dimension(type)) / scale : 0.0;
    }
    return std::isfinite(q) ? q : 0.0;
}

}  // namespace

void check_mesh_coordinates(const Mesh& mesh)
{
    const long long n = mesh.num_nodes();
    const double* x = mesh.node_coordinates().data();
    long long first_bad = std::numeric_limits<long long>::max();
    double largest = 0;
#pragma omp parallel for reduction(min : first_bad) reduction(max : largest) schedule(static)
    for (long long i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) {
            if (!std::isfinite(x[3 * i + d])) first_bad = std::min(first_bad, i);
            else largest = std::max(largest, std::abs(x[3 * i + d]));
        }
    if (first_bad < n)
        throw MeshSourceError(fmt::format("mesh {}: node {} has a coordinate that is not finite ({}, {}, {})",
                                          mesh.source, first_bad, x[3 * first_bad], x[3 * first_bad + 1],
                                          x[3 * first_bad + 2]));
    if (mesh.dim != 2 || n == 0) return;
    const double z0 = x[2], tolerance = 1e-10 * std::max(1.0, largest);
    long long off_plane = std::numeric_limits<long long>::max();
#pragma omp parallel for reduction(min : off_plane) schedule(static)
    for (long long i = 0; i < n; ++i)
        if (std::abs(x[3 * i + 2] - z0) > tolerance) off_plane = std::min(off_plane, i);
    if (off_plane < n)
        throw MeshSourceError(fmt::format(
            "mesh {} is 2D but does not lie in a plane z = const (node 0 at z = {}, node {} at "
            "({}, {}, {})): gpufem solves 2D problems in the xy-plane and would solve this one on "
            "its projection; move the mesh into a plane z = const. If it is a 3D model, the file holds "
            "no volume cells: Gmsh saves only named parts, so name the volume too (Physical "
            "Volume(\"...\") beside the Physical Surface groups)",
            mesh.source, z0, off_plane, x[3 * off_plane], x[3 * off_plane + 1], x[3 * off_plane + 2]));
}

std::vector<double> cell_qualities(const Mesh& mesh)
{
    const long long n = mesh.num_cells();
    std::vector<double> quality(static_cast<std::size_t>(n));
    const KernelShapes shapes = kernel_shapes();
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < n; ++c) quality[static_cast<std::size_t>(c)] = cell_quality(mesh, shapes, c);
    return quality;
}

QualitySummary check_cell_quality(const Mesh& mesh, const QualityLimits& limits)
{
    // The worst cell (the first of the lowest quality) and the poor ones, by the host's
    // threads: each takes a contiguous range, their results joined in order of quality, then
    // of cell.
    const long long n = mesh.num_cells();
    const KernelShapes shapes = kernel_shapes();
    QualitySummary out;
#pragma omp parallel
    {
        QualitySummary mine;
#pragma omp for schedule(static) nowait
        for (long long c = 0; c < n; ++c) {
            const double q = cell_quality(mesh, shapes, c);
            if (mine.worst_cell < 0 || q < mine.worst) {
                mine.worst = q;
                mine.worst_cell = c;
            }
            mine.poor += q < limits.warn;
        }
#pragma omp critical
        {
            out.poor += mine.poor;
            if (mine.worst_cell >= 0 &&
                (out.worst_cell < 0 || mine.worst < out.worst || (mine.worst == out.worst && mine.worst_cell < out.worst_cell))) {
                out.worst = mine.worst;
                out.worst_cell = mine.worst_cell;
            }
        }
    }
    if (out.worst_cell >= 0 && out.worst < limits.refuse)
        throw MeshSourceError(fmt::format(
            "mesh {}: {} is a sliver or degenerate: its {} is {:.3g} of an ideal cell's with the "
            "same longest edge (at least {:.0e} is taken; {} cells are below {:.0e}); its entries "
            "would swamp the system. Remesh it (Gmsh's Mesh.OptimizeNetgen = 1 removes most slivers "
            "of its 3D mesher), or lower mesh.min_quality if the cell is meant",
            mesh.source, cell_text(mesh, out.worst_cell), mesh.dim == 2 ? "area" : "volume", out.worst,
            limits.refuse, out.poor, limits.warn));
    return out;
}

}  // namespace gpufem
