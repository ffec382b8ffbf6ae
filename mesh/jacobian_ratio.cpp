#include "mesh/jacobian_ratio.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// The reference gradients of a shape's Lagrange basis at its own nodes: [point][node][axis].
struct NodalGradients {
    int points = 0;
    int nodes = 0;
    std::vector<double> gradients;
};

/// The gradients of the first-order basis at the corners, from the shape's table (no Gmsh
/// call: the pyramid's rational basis is taken at its apex as its limit there).
NodalGradients corner_gradients(ElementType type)
{
    const ShapeTraits& shape = cell_shape(type);
    NodalGradients out;
    out.points = out.nodes = shape.corners;
    out.gradients.resize(static_cast<std::size_t>(shape.corners * shape.corners * shape.dim));
    std::vector<double> values(static_cast<std::size_t>(shape.corners));
    for (int p = 0; p < shape.corners; ++p)
        shape.linear_basis(&shape.reference_corners[static_cast<std::size_t>(p * shape.dim)], values.data(),
                           &out.gradients[static_cast<std::size_t>(p * shape.corners * shape.dim)]);
    return out;
}

/// The gradients of the order-`order` basis at its nodes.
NodalGradients nodal_gradients(ElementType type, int order)
{
    if (order == 1) return corner_gradients(type);
    NodalGradients out;
    const std::vector<double> points = lagrange_reference_nodes(type, order);
    std::vector<double> values;
    lagrange_basis(type, order, points, values, out.gradients);
    out.nodes = lagrange_node_count(type, order);
    out.points = static_cast<int>(points.size()) / element_dimension(type);
    return out;
}

/// det J at one point: J[a][b] = sum_i x_i[a] dN_i / dxi_b over the cell's nodes.
double jacobian_determinant(const Mesh& mesh, const index_type* nodes, int count, const double* gradients)
{
    const int dim = mesh.dim;
    double J[3][3] = {};
    for (int i = 0; i < count; ++i) {
        const double* x = &mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[i])];
        for (int a = 0; a < dim; ++a)
            for (int b = 0; b < dim; ++b) J[a][b] += x[a] * gradients[i * dim + b];
    }
    if (dim == 2) return J[0][0] * J[1][1] - J[0][1] * J[1][0];
    return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/// One cell's ratio: min det J / max |det J| over its nodes; a 2D cell in its own orientation
/// (that of its largest |det J|): a clockwise cell's ratio is -(max det J) / max |det J|.
double cell_ratio(const Mesh& mesh, long long c, const NodalGradients& basis)
{
    const index_type* nodes = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
    double lowest = 0, highest = 0, largest = 0;
    bool clockwise = false;
    for (int p = 0; p < basis.points; ++p) {
        const double det = jacobian_determinant(
            mesh, nodes, basis.nodes, &basis.gradients[static_cast<std::size_t>(p * basis.nodes * mesh.dim)]);
        if (!std::isfinite(det)) return 0;
        lowest = p == 0 ? det : std::min(lowest, det);
        highest = p == 0 ? det : std::max(highest, det);
        if (std::abs(det) > largest) largest = std::abs(det), clockwise = det < 0;
    }
    if (largest == 0) return 0;
    return mesh.dim == 2 && clockwise ? -highest / largest : lowest / largest;
}

}  // namespace

std::vector<double> jacobian_ratios(const Mesh& mesh)
{
    NodalGradients basis_of[element_type_count];
    for (int t = 0; t < element_type_count; ++t) {
        const auto type = static_cast<ElementType>(t);
        if (element_dimension(type) == mesh.dim && mesh.has_cells_of(type)) basis_of[t] = nodal_gradients(type, mesh.degree);
    }
    const long long n = mesh.num_cells();
    std::vector<double> ratio(static_cast<std::size_t>(n));
    kernels::cpu::chunked_for(n, [&](long long c) {
        const int type = static_cast<int>(mesh.type_of_cell(static_cast<index_type>(c)));
        ratio[static_cast<std::size_t>(c)] = cell_ratio(mesh, c, basis_of[type]);
    });
    return ratio;
}

JacobianRatioSummary summarise_jacobian_ratios(const Mesh& mesh, int named)
{
    const std::vector<double> ratio = jacobian_ratios(mesh);
    JacobianRatioSummary out;
    if (ratio.empty()) return out;
    out.min = out.max = ratio[0];
    for (std::size_t c = 0; c < ratio.size(); ++c) {
        out.min = std::min(out.min, ratio[c]);
        out.max = std::max(out.max, ratio[c]);
        if (ratio[c] > 0) continue;
        ++out.non_positive;
        if (static_cast<int>(out.first_non_positive.size()) < named)
            out.first_non_positive.push_back(static_cast<long long>(c));
    }
    return out;
}

}  // namespace gpufem
