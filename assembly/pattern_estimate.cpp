#include "assembly/pattern_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// Coefficients (n^d, ..., n^0) of the non-zeros of the generated triangles (d = 2) and
/// Kuhn tetrahedra (d = 3) of degree 1..4 on n boxes per unit length.
constexpr double triangle_nnz[4][3] = {{7, 6, 1}, {46, 16, 1}, {153, 30, 1}, {376, 48, 1}};
constexpr double tetrahedron_nnz[4][4] = {
    {15, 21, 9, 1}, {230, 138, 24, 1}, {1311, 459, 45, 1}, {4824, 1128, 72, 1}};
/// Longest row of the same meshes (an interior vertex's).
constexpr double triangle_longest[4] = {7, 19, 37, 61};
constexpr double tetrahedron_longest[4] = {15, 65, 175, 369};

bool is_simplex(ElementType type) { return cell_shape(type).simplex; }

/// Non-zeros per row in the interior of a large structured mesh.
double mean_row_length(ElementType type, int k, int dim)
{
    if (type == ElementType::triangle) return triangle_nnz[k - 1][0] / (k * k);
    if (type == ElementType::tetrahedron) return tetrahedron_nnz[k - 1][0] / (k * k * k);
    // Prisms: the triangle's row times the line's (k + 2): 85 at degree 3 (an extruded Gmsh
    // triangulation, refined twice by gpufem: 84.1).
    if (type == ElementType::prism) return triangle_nnz[k - 1][0] / (k * k) * (k + 2.0);
    return std::pow(k + 2.0, dim);  // tensor products: k + 2 per axis
}

double longest_row(ElementType type, int k, int dim)
{
    if (type == ElementType::triangle) return triangle_longest[k - 1];
    if (type == ElementType::tetrahedron) return tetrahedron_longest[k - 1];
    return std::pow(2.0 * k + 1, dim);
}

/// Exact non-zeros of the generated unit square or cube with n boxes per unit length.
double structured_nnz(ElementType type, int k, int dim, double n)
{
    if (type == ElementType::triangle)
        return (triangle_nnz[k - 1][0] * n + triangle_nnz[k - 1][1]) * n + triangle_nnz[k - 1][2];
    if (type == ElementType::tetrahedron) {
        const double* c = tetrahedron_nnz[k - 1];
        return ((c[0] * n + c[1]) * n + c[2]) * n + c[3];
    }
    // A node pair couples when it does along every axis: 1D has n((k+1)^2 - 1) + 1 pairs.
    return std::pow(n * ((k + 1.0) * (k + 1.0) - 1) + 1, dim);
}

}  // namespace

MatrixShape estimated_matrix_shape(const MeshCounts& mesh, double value_bytes)
{
    const int k = std::clamp(mesh.degree, 1, 4);
    const int d = mesh.dim;
    MatrixShape m;
    m.rows = mesh.nodes;
    m.value_bytes = value_bytes;
    m.cells = mesh.cells;
    m.nodes_per_cell = mesh.nodes_per_cell;
    const double n = static_cast<double>(mesh.boxes_per_unit);
    if (mesh.shape == "unit_square" || mesh.shape == "unit_cube") {
        m.nnz = structured_nnz(mesh.cell_type, k, d, n);
    } else if (mesh.shape == "l_shape") {
        m.nnz = 3 * structured_nnz(mesh.cell_type, k, d, n);  // three unit squares
    } else {
        m.nnz = mesh.nodes * mean_row_length(mesh.cell_type, k, d);
    }
    m.max_row_length = std::min(longest_row(mesh.cell_type, k, d), mesh.nodes);
    const double mean = m.rows > 0 ? m.nnz / m.rows : 0;
    // Lattice order runs along x: a slice's longest row is that of the x line's vertex nodes,
    // (2k + 1) x the mean of the other axes' (k + 2) each.
    m.padded_row_length = is_simplex(mesh.cell_type)
                              ? 0.5 * (mean + m.max_row_length)
                              : std::min(m.max_row_length, (2.0 * k + 1) * std::pow(k + 2.0, d - 1));
    m.padded_row_length = std::max(m.padded_row_length, mean);
    // Lattice order couples a node with those k lattice steps away along each axis.
    const double line = n > 0 ? k * n + 1 : std::pow(mesh.nodes, 1.0 / d);
    m.band_width = std::min(mesh.nodes, 2 * k * (d == 3 ? line * line + line + 1 : line + 1) + 1);
    // On a lattice a node couples with those k steps away along each axis, (2k + 1)^d
    // diagonals; the L-shape's lines have two lengths.
    if (n > 0) m.diagonals = std::pow(2.0 * k + 1, d) * (mesh.shape == "l_shape" ? 2 : 1);
    return m;
}

}  // namespace gpufem
