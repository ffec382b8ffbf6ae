#include "mesh/lagrange_basis.hpp"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gll_points.hpp"
#include "mesh/gmsh_reference_table.hpp"
#include "mesh/low_order_bases.hpp"
#include "mesh/vandermonde_basis.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// "triangles of order 3": names the element in errors.
std::string element_text(ElementType type, int order)
{
    return std::string(element_type_plural(type)) + " of order " + std::to_string(order);
}

/// The MSH type whose basis is the Lagrange basis of this shape and order (the shape's
/// gmsh_basis_types: the complete Lagrange types gpufem reads, and for pyramids of order 2..4
/// Gmsh's complete pyramids, which gpufem numbers itself but does not read).
int basis_gmsh_type(ElementType type, int order)
{
    const ShapeTraits& shape = cell_shape(type);
    if (order >= 1 && order <= static_cast<int>(shape.gmsh_basis_types.size()) &&
        shape.gmsh_basis_types[static_cast<std::size_t>(order - 1)] >= 0)
        return shape.gmsh_basis_types[static_cast<std::size_t>(order - 1)];
    return gmsh_element_type(type, order);  // throws, naming the shape and order
}

/// The one-dimensional Lagrange polynomial of node l among `nodes` (positions on [-1, 1]), and
/// its derivative, at w.
void line_lagrange(const std::vector<double>& nodes, int l, double w, double& value, double& derivative)
{
    const double at = nodes[static_cast<std::size_t>(l)];
    value = 1.0;
    derivative = 0.0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (static_cast<int>(i) == l) continue;
        const double scale = 1.0 / (at - nodes[i]);
        derivative = derivative * (w - nodes[i]) * scale + value * scale;
        value *= (w - nodes[i]) * scale;
    }
}

/// The same among order + 1 equispaced nodes of [-1, 1].
void line_lagrange(int order, int l, double w, double& value, double& derivative)
{
    std::vector<double> nodes(static_cast<std::size_t>(order + 1));
    for (int i = 0; i <= order; ++i) nodes[static_cast<std::size_t>(i)] = -1.0 + 2.0 * i / order;
    line_lagrange(nodes, l, w, value, derivative);
}

/// gpufem's prism of order >= 2 (Gmsh 4.8 has no prism basis above order 2): the 6 corners
/// in Gmsh's order, then the other lattice points by level (w), row (v), column (u); the
/// triangle's index (in Gmsh's node order of the order-k triangle) and the level of each.
struct PrismNodes {
    std::vector<double> reference;  ///< 3 per node
    std::vector<int> triangle_node, level;
};

const PrismNodes& prism_nodes(int order)
{
    static std::mutex mutex;
    static std::map<int, PrismNodes> known;
    const std::vector<double> triangle = lagrange_reference_nodes(ElementType::triangle, order);
    const std::lock_guard lock(mutex);
    auto found = known.find(order);
    if (found != known.end()) return found->second;
    PrismNodes nodes;
    const auto add = [&](int x, int y, int z) {
        int a = -1;
        for (std::size_t j = 0; j < triangle.size() / 2; ++j)
            if (std::lround(triangle[2 * j] * order) == x && std::lround(triangle[2 * j + 1] * order) == y)
                a = static_cast<int>(j);
        if (a < 0) throw std::logic_error("prism_nodes: a lattice point off the triangle's nodes");
        nodes.reference.insert(nodes.reference.end(), {static_cast<double>(x) / order,
                                                       static_cast<double>(y) / order,
                                                       2.0 * z / order - 1.0});
        nodes.triangle_node.push_back(a);
        nodes.level.push_back(z);
    };
    const int corner[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
    for (const auto& c : corner) add(c[0] * order, c[1] * order, c[2] * order);
    for (int z = 0; z <= order; ++z)
        for (int y = 0; y <= order; ++y)
            for (int x = 0; x + y <= order; ++x) {
                const bool is_corner = (z == 0 || z == order) && ((x == 0 && y == 0) || (x == order) || (y == order));
                if (!is_corner) add(x, y, z);
            }
    return known.emplace(order, std::move(nodes)).first->second;
}

/// The prism's basis of order >= 2: the order-k triangle's times the line's.
void prism_basis(int order, const std::vector<double>& points, std::vector<double>& values,
                 std::vector<double>& gradients)
{
    const PrismNodes& nodes = prism_nodes(order);
    const std::size_t count = points.size() / 3, n = nodes.level.size();
    std::vector<double> in_plane(2 * count), triangle_values, triangle_gradients;
    for (std::size_t p = 0; p < count; ++p) {
        in_plane[2 * p] = points[3 * p];
        in_plane[2 * p + 1] = points[3 * p + 1];
    }
    lagrange_basis(ElementType::triangle, order, in_plane, triangle_values, triangle_gradients);
    const std::size_t nt = static_cast<std::size_t>(lagrange_node_count(ElementType::triangle, order));
    values.assign(count * n, 0.0);
    gradients.assign(3 * count * n, 0.0);
    for (std::size_t p = 0; p < count; ++p)
        for (std::size_t j = 0; j < n; ++j) {
            double line = 0.0, line_derivative = 0.0;
            line_lagrange(order, nodes.level[j], points[3 * p + 2], line, line_derivative);
            const std::size_t a = p * nt + static_cast<std::size_t>(nodes.triangle_node[j]);
            values[p * n + j] = triangle_values[a] * line;
            gradients[3 * (p * n + j)] = triangle_gradients[2 * a] * line;
            gradients[3 * (p * n + j) + 1] = triangle_gradients[2 * a + 1] * line;
            gradients[3 * (p * n + j) + 2] = triangle_values[a] * line_derivative;
        }
}

/// The quadrilateral's or hexahedron's basis of order >= 2 (and the line's from degree 5):
/// products of the line's Lagrange polynomials on line_node_positions(order), each node's
/// factors found from its equispaced reference coordinates (Gmsh's node order). Up to order 4 the same functions as Gmsh's,
/// without its cost (it grows like the cube of the nodes: 40 ms for the Q4 hexahedron at its
/// 125 points).
void box_basis(ElementType type, int order, const std::vector<double>& points, std::vector<double>& values,
               std::vector<double>& gradients)
{
    const std::size_t dim = static_cast<std::size_t>(element_dimension(type));
    const std::vector<double> nodes = equispaced_reference_nodes(type, order);
    const std::vector<double> line_nodes = line_node_positions(order);
    const std::size_t n = nodes.size() / dim, count = points.size() / dim;
    std::vector<int> line_of(n * dim);  // each node's position on the line, per direction
    for (std::size_t j = 0; j < n * dim; ++j) line_of[j] = static_cast<int>(std::lround((nodes[j] + 1.0) * order / 2.0));
    values.assign(count * n, 0.0);
    gradients.assign(dim * count * n, 0.0);
    std::vector<double> line(dim * (order + 1)), slope(dim * (order + 1));
    for (std::size_t p = 0; p < count; ++p) {
        for (std::size_t d = 0; d < dim; ++d)
            for (int l = 0; l <= order; ++l)
                line_lagrange(line_nodes, l, points[dim * p + d], line[d * (order + 1) + l], slope[d * (order + 1) + l]);
        for (std::size_t j = 0; j < n; ++j) {
            double value = 1.0, gradient[3] = {1.0, 1.0, 1.0};
            for (std::size_t d = 0; d < dim; ++d) {
                const std::size_t at = d * (order + 1) + static_cast<std::size_t>(line_of[j * dim + d]);
                value *= line[at];
                for (std::size_t c = 0; c < dim; ++c) gradient[c] *= c == d ? slope[at] : line[at];
            }
            values[p * n + j] = value;
            for (std::size_t c = 0; c < dim; ++c) gradients[dim * (p * n + j) + c] = gradient[c];
        }
    }
}

}  // namespace

void lagrange_basis(ElementType type, int order, const std::vector<double>& points,
                    std::vector<double>& values, std::vector<double>& gradients)
{
    const std::size_t dim = static_cast<std::size_t>(element_dimension(type));
    if (points.size() % dim != 0)
        throw std::invalid_argument("Lagrange basis of " + element_text(type, order) + ": " +
                                    std::to_string(points.size()) +
                                    " point coordinates are not a multiple of the dimension " + std::to_string(dim));
    if (type == ElementType::prism && order >= 2 && order <= 4) {
        prism_basis(order, points, values, gradients);
        return;
    }
    const bool box = type == ElementType::line || type == ElementType::quadrilateral || type == ElementType::hexahedron;
    if ((box && order >= 1 && order <= 4) || has_gll_nodes(type, order)) {
        box_basis(type, order, points, values, gradients);
        return;
    }
    if (has_vandermonde_basis(type, order)) {  // before order 1: the pyramid's rational basis
        vandermonde_basis(type, order, points, values, gradients);
        return;
    }
    if (order == 1) {
        linear_shape_basis(type, points, values, gradients);
        return;
    }
    if (has_simplex_basis(type, order)) {
        simplex_basis(type, order, points, values, gradients);
        return;
    }
    throw std::invalid_argument("Lagrange basis of " + element_text(type, order) + ": gpufem has none");
}

namespace {

/// The reference nodes of Gmsh's type for the shape and order, from the table read from Gmsh
/// when gpufem was built (gpufem's own order for prisms of order 2..4).
std::vector<double> tabled_reference_nodes(ElementType type, int order)
{
    if (type == ElementType::prism && order >= 2 && order <= 4) return prism_nodes(order).reference;
    const std::span<const double> table = gmsh_reference_table(basis_gmsh_type(type, order));  // checks the order
    if (table.size() != static_cast<std::size_t>(lagrange_node_count(type, order) * element_dimension(type)))
        throw std::logic_error("reference nodes of " + element_text(type, order) +
                               ": not in the table of Gmsh's reference nodes (mesh/tools/gmsh_reference_tables.cpp)");
    return {table.begin(), table.end()};
}

}  // namespace

std::vector<double> lagrange_reference_nodes(ElementType type, int order)
{
    std::vector<double> nodes = equispaced_reference_nodes(type, order);
    if (!has_gll_nodes(type, order)) return nodes;
    // Equispaced node i of the line (-1 + 2 i / k) moves to GLL point i, on every axis.
    const std::vector<double> line = gll_points(order + 1);
    for (double& x : nodes) x = line[static_cast<std::size_t>(std::lround((x + 1.0) * order / 2.0))];
    return nodes;
}

std::vector<double> equispaced_reference_nodes(ElementType type, int order)
{
    return tabled_reference_nodes(type, order);
}

}  // namespace gpufem
