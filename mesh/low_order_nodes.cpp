#include "mesh/low_order_nodes.hpp"

#include <array>
#include <span>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// The corners whose mean is each node of order 2 after the corners, in Gmsh's node order
/// (its documentation's numbering of the 3-node line, 6-node triangle, 9-node quadrangle,
/// 10-node tetrahedron and 27-node hexahedron); -1 ends a shorter group.
using CornerGroup = std::array<int, 8>;
constexpr CornerGroup pair(int a, int b) { return {a, b, -1, -1, -1, -1, -1, -1}; }
constexpr CornerGroup quad(int a, int b, int c, int d) { return {a, b, c, d, -1, -1, -1, -1}; }

constexpr CornerGroup line_2[] = {pair(0, 1)};
constexpr CornerGroup triangle_2[] = {pair(0, 1), pair(1, 2), pair(2, 0)};
constexpr CornerGroup quadrilateral_2[] = {pair(0, 1), pair(1, 2), pair(2, 3), pair(3, 0), quad(0, 1, 2, 3)};
constexpr CornerGroup tetrahedron_2[] = {pair(0, 1), pair(1, 2), pair(2, 0), pair(3, 0), pair(3, 2), pair(3, 1)};
constexpr CornerGroup hexahedron_2[] = {
    pair(0, 1), pair(0, 3), pair(0, 4), pair(1, 2), pair(1, 5), pair(2, 3), pair(2, 6), pair(3, 7),
    pair(4, 5), pair(4, 7), pair(5, 6), pair(6, 7), quad(0, 1, 2, 3), quad(0, 1, 5, 4), quad(0, 3, 7, 4),
    quad(1, 2, 6, 5), quad(2, 3, 7, 6), quad(4, 5, 6, 7), {0, 1, 2, 3, 4, 5, 6, 7}};

/// The order-2 groups of a shape (empty: none here).
std::span<const CornerGroup> order_two_groups(ElementType type)
{
    switch (type) {
    case ElementType::line: return line_2;
    case ElementType::triangle: return triangle_2;
    case ElementType::quadrilateral: return quadrilateral_2;
    case ElementType::tetrahedron: return tetrahedron_2;
    case ElementType::hexahedron: return hexahedron_2;
    default: return {};
    }
}

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

}  // namespace

std::optional<std::vector<double>> low_order_reference_nodes(ElementType type, int order)
{
    const ShapeTraits& shape = cell_shape(type);
    if (order < 1 || order > 2) return std::nullopt;
    std::vector<double> nodes(shape.reference_corners.begin(), shape.reference_corners.end());
    if (order == 1) return nodes;
    const std::span<const CornerGroup> groups = order_two_groups(type);
    if (groups.empty()) return std::nullopt;
    const auto dim = static_cast<std::size_t>(shape.dim);
    for (const CornerGroup& group : groups) {
        std::array<double, 3> sum{};
        double count = 0;
        for (const int corner : group) {
            if (corner < 0) break;
            for (std::size_t d = 0; d < dim; ++d) sum[d] += shape.reference_corners[static_cast<std::size_t>(corner) * dim + d];
            count += 1;
        }
        for (std::size_t d = 0; d < dim; ++d) nodes.push_back(sum[d] / count);
    }
    return nodes;
}

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
    return (type == ElementType::triangle || type == ElementType::tetrahedron) && (order == 1 || order == 2);
}

void simplex_basis(ElementType type, int order, const std::vector<double>& points, std::vector<double>& values,
                   std::vector<double>& gradients)
{
    const int dim = element_dimension(type);
    const int corners = dim + 1;
    const std::span<const CornerGroup> edges = order_two_groups(type);
    const std::size_t n = static_cast<std::size_t>(corners) + (order == 2 ? edges.size() : 0);
    const std::size_t count = points.size() / static_cast<std::size_t>(dim);
    values.assign(count * n, 0.0);
    gradients.assign(static_cast<std::size_t>(dim) * count * n, 0.0);
    for (std::size_t p = 0; p < count; ++p) {
        const std::array<double, 4> l = barycentric(&points[p * static_cast<std::size_t>(dim)], dim);
        double* value = &values[p * n];
        double* gradient = &gradients[p * n * static_cast<std::size_t>(dim)];
        for (int i = 0; i < corners; ++i) {
            const double li = l[static_cast<std::size_t>(i)];
            value[i] = order == 1 ? li : li * (2.0 * li - 1.0);
            const double factor = order == 1 ? 1.0 : 4.0 * li - 1.0;
            for (int d = 0; d < dim; ++d) gradient[i * dim + d] = factor * barycentric_slope(i, d);
        }
        if (order == 1) continue;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const int a = edges[e][0], b = edges[e][1];
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
