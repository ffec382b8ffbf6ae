#include "mesh/low_order_bases.hpp"

#include <array>
#include <cmath>
#include <span>
#include <stdexcept>

#include "mesh/gmsh_reference_table.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// The barycentric coordinates of a point of the reference triangle or tetrahedron (corner 0
/// at the origin, corner i + 1 at unit vector i): l_0 = 1 - sum x, l_{i+1} = x_i.
std::array<double, 4> barycentric(const double* x, int dim)
{
    std::array<double, 4> l{1.0, 0.0, 0.0, 0.0};
    for (int d = 0; d < dim; ++d) {
        l[static_cast<std::size_t>(d + 1)] = x[d];
        l[0] -= x[d];
    }
    return l;
}

/// Component d of the gradient of barycentric coordinate i.
double barycentric_slope(int i, int d) { return i == 0 ? -1.0 : (i == d + 1 ? 1.0 : 0.0); }

/// The two corners whose midpoint is each node of the order-2 simplex after its corners, in
/// Gmsh's node order (its reference nodes, gmsh_reference_table).
std::vector<std::array<int, 2>> edge_corners(ElementType type)
{
    const ShapeTraits& shape = cell_shape(type);
    const int dim = shape.dim, corners = shape.corners;
    const std::span<const double> nodes = gmsh_reference_table(shape.gmsh_basis_types[1]);
    const auto at = [&](int node, int d) { return nodes[static_cast<std::size_t>(node * dim + d)]; };
    std::vector<std::array<int, 2>> edges;
    for (int j = corners; j < static_cast<int>(nodes.size()) / dim; ++j)
        for (int a = 0; a < corners; ++a)
            for (int b = a + 1; b < corners; ++b) {
                bool midpoint = true;
                for (int d = 0; d < dim; ++d) midpoint = midpoint && std::abs(at(j, d) - 0.5 * (at(a, d) + at(b, d))) < 1e-12;
                if (midpoint) edges.push_back({a, b});
            }
    if (edges.size() != shape.edges.size())
        throw std::logic_error("simplex_basis: the order-2 nodes are not the edges' midpoints");
    return edges;
}

}  // namespace

void linear_shape_basis(ElementType type, const std::vector<double>& points, std::vector<double>& values,
                        std::vector<double>& gradients)
{
    const ShapeTraits& shape = cell_shape(type);
    const auto dim = static_cast<std::size_t>(shape.dim), n = static_cast<std::size_t>(shape.corners);
    const std::size_t count = points.size() / dim;
    values.assign(count * n, 0.0);
    gradients.assign(dim * count * n, 0.0);
    for (std::size_t p = 0; p < count; ++p)
        shape.linear_basis(&points[p * dim], &values[p * n], &gradients[p * n * dim]);
}

bool has_simplex_basis(ElementType type, int order)
{
    return (type == ElementType::triangle || type == ElementType::tetrahedron) && order == 2;
}

void simplex_basis(ElementType type, int order, const std::vector<double>& points, std::vector<double>& values,
                   std::vector<double>& gradients)
{
    if (!has_simplex_basis(type, order)) throw std::logic_error("simplex_basis: a triangle or tetrahedron of order 2");
    const int dim = element_dimension(type);
    const int corners = dim + 1;
    const std::vector<std::array<int, 2>> edges = edge_corners(type);
    const std::size_t n = static_cast<std::size_t>(corners) + edges.size();
    const std::size_t count = points.size() / static_cast<std::size_t>(dim);
    values.assign(count * n, 0.0);
    gradients.assign(static_cast<std::size_t>(dim) * count * n, 0.0);
    for (std::size_t p = 0; p < count; ++p) {
        const std::array<double, 4> l = barycentric(&points[p * static_cast<std::size_t>(dim)], dim);
        double* value = &values[p * n];
        double* gradient = &gradients[p * n * static_cast<std::size_t>(dim)];
        for (int i = 0; i < corners; ++i) {
            const double li = l[static_cast<std::size_t>(i)];
            value[i] = li * (2.0 * li - 1.0);
            for (int d = 0; d < dim; ++d) gradient[i * dim + d] = (4.0 * li - 1.0) * barycentric_slope(i, d);
        }
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const auto [a, b] = edges[e];
            const double la = l[static_cast<std::size_t>(a)], lb = l[static_cast<std::size_t>(b)];
            const std::size_t j = static_cast<std::size_t>(corners) + e;
            value[j] = 4.0 * la * lb;
            for (int d = 0; d < dim; ++d)
                gradient[j * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)] =
                    4.0 * (lb * barycentric_slope(a, d) + la * barycentric_slope(b, d));
        }
    }
}

}  // namespace gpufem
