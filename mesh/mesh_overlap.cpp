#include "mesh/mesh_overlap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "mesh/cell_description.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

constexpr double two_pi = 6.283185307179586;

const double* at(const Mesh& mesh, index_type node) { return &mesh.node_coordinates()[3 * static_cast<std::size_t>(node)]; }

const index_type* row_of(const Mesh& mesh, long long c)
{
    return &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
}

/// Each cell's orientation: the sign of its area (corners in cyclic order), 0 for none.
std::vector<signed char> orientations(const Mesh& mesh, const FaceSlots& faces)
{
    const long long n = mesh.num_cells();
    std::vector<signed char> out(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < n; ++c) {
        const index_type* row = row_of(mesh, c);
        const int corners = faces.shape(c).corners;
        double twice = 0;
        for (int k = 0; k < corners; ++k) {
            const double *a = at(mesh, row[k]), *b = at(mesh, row[(k + 1) % corners]);
            twice += a[0] * b[1] - a[1] * b[0];
        }
        out[static_cast<std::size_t>(c)] = static_cast<signed char>((twice > 0) - (twice < 0));
    }
    return out;
}

/// +1 when the edge a b runs forward in the cyclic order of a cell's corners, else -1.
int direction(const index_type* row, int corners, index_type a, index_type b)
{
    const int i = static_cast<int>(std::find(row, row + corners, a) - row);
    return row[(i + 1) % corners] == b ? 1 : -1;
}

/// The first slot whose cell and the cell across lie on one side of their edge, or -1.
long long first_folded_edge(const Mesh& mesh, const FaceSlots& faces, const std::vector<signed char>& sign)
{
    const long long slots = static_cast<long long>(faces.neighbour.size());
    long long first = std::numeric_limits<long long>::max();
#pragma omp parallel for reduction(min : first) schedule(static)
    for (long long s = 0; s < slots; ++s) {
        const long long c = s / faces.faces_per_cell, other = faces.neighbour[static_cast<std::size_t>(s)];
        if (other <= c || sign[static_cast<std::size_t>(c)] == 0 || sign[static_cast<std::size_t>(other)] == 0) continue;
        index_type edge[4] = {0, 0, 0, 0};
        faces.face_nodes(s, edge);
        const int mine = direction(row_of(mesh, c), faces.shape(c).corners, edge[0], edge[1]) * sign[static_cast<std::size_t>(c)];
        const int theirs =
            direction(row_of(mesh, other), faces.shape(other).corners, edge[0], edge[1]) * sign[static_cast<std::size_t>(other)];
        if (mine == theirs) first = std::min(first, s);
    }
    return first == std::numeric_limits<long long>::max() ? -1 : first;
}

/// Per node: the sum of its cells' interior angles (each cell by its own orientation).
std::vector<double> angle_sums(const Mesh& mesh, const FaceSlots& faces, const std::vector<signed char>& sign)
{
    std::vector<double> sum(static_cast<std::size_t>(mesh.num_nodes()), 0.0);
    const long long n = mesh.num_cells();
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < n; ++c) {
        const index_type* row = row_of(mesh, c);
        const int corners = faces.shape(c).corners;
        for (int k = 0; k < corners; ++k) {
            const double *p = at(mesh, row[k]), *next = at(mesh, row[(k + 1) % corners]),
                         *prev = at(mesh, row[(k + corners - 1) % corners]);
            const double u[2] = {next[0] - p[0], next[1] - p[1]}, v[2] = {prev[0] - p[0], prev[1] - p[1]};
            double angle = std::atan2(sign[static_cast<std::size_t>(c)] * (u[0] * v[1] - u[1] * v[0]), u[0] * v[0] + u[1] * v[1]);
            if (angle < 0) angle += two_pi;
#pragma omp atomic
            sum[static_cast<std::size_t>(row[k])] += angle;
        }
    }
    return sum;
}

/// The first node whose cells' angles add up to more than 2 pi, or (inside) to other than 2 pi.
long long first_overwound_node(const Mesh& mesh, const FaceSlots& faces, const std::vector<double>& sum)
{
    std::vector<char> on_boundary(sum.size(), 0);
    const long long slots = static_cast<long long>(faces.neighbour.size());
    for (long long s = 0; s < slots; ++s)
        if (faces.is_boundary(s)) {
            index_type edge[4] = {0, 0, 0, 0};
            faces.face_nodes(s, edge);
            on_boundary[static_cast<std::size_t>(edge[0])] = on_boundary[static_cast<std::size_t>(edge[1])] = 1;
        }
    const double tol = 1e-6 * two_pi;
    for (std::size_t v = 0; v < sum.size(); ++v) {
        if (sum[v] == 0) continue;  // not a corner (a higher-order node)
        if (sum[v] > two_pi + tol || (!on_boundary[v] && sum[v] < two_pi - tol)) return static_cast<long long>(v);
    }
    return -1;
}

/// The centre of cell c's corners.
std::array<double, 3> corner_centre(const Mesh& mesh, const FaceSlots& faces, long long c)
{
    std::array<double, 3> centre{0, 0, 0};
    const int corners = faces.shape(c).corners;
    for (int k = 0; k < corners; ++k)
        for (int d = 0; d < 3; ++d) centre[static_cast<std::size_t>(d)] += at(mesh, row_of(mesh, c)[k])[d] / corners;
    return centre;
}

/// Which side of the plane through a face's first three nodes x lies on (+1, -1, 0).
int side_of_face(const Mesh& mesh, const index_type* face, const std::array<double, 3>& x)
{
    const double *a = at(mesh, face[0]), *b = at(mesh, face[1]), *c = at(mesh, face[2]);
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const double s = n[0] * (x[0] - a[0]) + n[1] * (x[1] - a[1]) + n[2] * (x[2] - a[2]);
    return (s > 0) - (s < 0);
}

}  // namespace

std::optional<Overlap> find_fold_3d(const Mesh& mesh, const FaceSlots& faces)
{
    const long long cells = mesh.num_cells();
    std::vector<std::array<double, 3>> centre(static_cast<std::size_t>(cells));
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) centre[static_cast<std::size_t>(c)] = corner_centre(mesh, faces, c);
    const long long slots = static_cast<long long>(faces.neighbour.size());
    long long first = std::numeric_limits<long long>::max();
#pragma omp parallel for reduction(min : first) schedule(static)
    for (long long s = 0; s < slots; ++s) {
        const long long c = s / faces.faces_per_cell, other = faces.neighbour[static_cast<std::size_t>(s)];
        if (other <= c) continue;
        index_type face[4] = {0, 0, 0, 0};
        faces.face_nodes(s, face);
        if (side_of_face(mesh, face, centre[static_cast<std::size_t>(c)]) *
                side_of_face(mesh, face, centre[static_cast<std::size_t>(other)]) >= 0)
            first = std::min(first, s);
    }
    if (first == std::numeric_limits<long long>::max()) return std::nullopt;
    Overlap out;
    out.cell = first / faces.faces_per_cell;
    out.other = faces.neighbour[static_cast<std::size_t>(first)];
    return out;
}

std::optional<Overlap> find_overlap_2d(const Mesh& mesh, const FaceSlots& faces)
{
    const std::vector<signed char> sign = orientations(mesh, faces);
    Overlap out;
    for (const signed char s : sign) (s > 0 ? out.positive : out.negative) += s != 0;
    const long long slot = first_folded_edge(mesh, faces, sign);
    if (slot >= 0) {
        out.cell = slot / faces.faces_per_cell;
        out.other = faces.neighbour[static_cast<std::size_t>(slot)];
        const int minority = out.negative <= out.positive ? -1 : 1;
        if (sign[static_cast<std::size_t>(out.other)] == minority && sign[static_cast<std::size_t>(out.cell)] != minority)
            std::swap(out.cell, out.other);
        return out;
    }
    out.node = first_overwound_node(mesh, faces, angle_sums(mesh, faces, sign));
    if (out.node >= 0) return out;
    return std::nullopt;
}

void check_no_overlap_2d(const Mesh& mesh, const FaceSlots& faces)
{
    const std::optional<Overlap> overlap = find_overlap_2d(mesh, faces);
    if (!overlap) return;
    const std::string counts = fmt::format("{} cells are inverted against the other {}", std::min(overlap->positive, overlap->negative),
                                           std::max(overlap->positive, overlap->negative));
    if (overlap->cell >= 0)
        throw MeshSourceError(fmt::format(
            "mesh {} is tangled: {} overlaps {}: they lie on the same side of the edge they share "
            "({}; a cell's orientation alone is no error); a node was moved past its neighbours",
            mesh.source, cell_text(mesh, overlap->cell), cell_text(mesh, overlap->other), counts));
    throw MeshSourceError(fmt::format(
        "mesh {} is tangled: the cells around node {} at {} overlap (their angles there add up to "
        "more than a full turn; {})", mesh.source, overlap->node, node_position_text(mesh, overlap->node), counts));
}

void check_no_fold_3d(const Mesh& mesh, const FaceSlots& faces)
{
    const std::optional<Overlap> fold = find_fold_3d(mesh, faces);
    if (fold)
        throw MeshSourceError(fmt::format(
            "mesh {} is tangled: {} overlaps {}: their corners' centres lie on the same side of the "
            "face they share (a cell on top of another, or a node moved past its neighbours)",
            mesh.source, cell_text(mesh, fold->cell), cell_text(mesh, fold->other)));
}

}  // namespace gpufem
