#include "assembly/reference_element.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/lagrange_basis.hpp"

namespace gpufem {

void lagrange1_basis(ElementType type, const double* xi, double* N, double* dN)
{
    switch (type) {
    case ElementType::line:
        N[0] = 0.5 * (1 - xi[0]), N[1] = 0.5 * (1 + xi[0]);
        dN[0] = -0.5, dN[1] = 0.5;
        return;
    case ElementType::triangle: {
        const double u = xi[0], v = xi[1];
        N[0] = 1 - u - v, N[1] = u, N[2] = v;
        const double g[] = {-1, -1, 1, 0, 0, 1};
        for (int k = 0; k < 6; ++k) dN[k] = g[k];
        return;
    }
    case ElementType::tetrahedron: {
        const double u = xi[0], v = xi[1], w = xi[2];
        N[0] = 1 - u - v - w, N[1] = u, N[2] = v, N[3] = w;
        const double g[] = {-1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        for (int k = 0; k < 12; ++k) dN[k] = g[k];
        return;
    }
    case ElementType::quadrilateral:
    case ElementType::hexahedron: {
        const int dim = type == ElementType::quadrilateral ? 2 : 3;
        const auto nodes = reference_nodes(type);
        const int n = dim == 2 ? 4 : 8;
        for (int i = 0; i < n; ++i) {
            double f[3], df[3];
            for (int c = 0; c < dim; ++c) {
                const double s = nodes[i * dim + c];
                f[c] = 0.5 * (1 + s * xi[c]);
                df[c] = 0.5 * s;
            }
            N[i] = 1.0;
            for (int c = 0; c < dim; ++c) N[i] *= f[c];
            for (int c = 0; c < dim; ++c) {
                double g = df[c];
                for (int o = 0; o < dim; ++o)
                    if (o != c) g *= f[o];
                dN[i * dim + c] = g;
            }
        }
        return;
    }
    case ElementType::prism: {
        // The triangle's basis in (u, v) times the line's in w (bottom w = -1, top w = 1).
        const double u = xi[0], v = xi[1], w = xi[2];
        const double t[3] = {1 - u - v, u, v};
        const double dt[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
        for (int level = 0; level < 2; ++level) {
            const double s = level == 0 ? 0.5 * (1 - w) : 0.5 * (1 + w);
            const double ds = level == 0 ? -0.5 : 0.5;
            for (int a = 0; a < 3; ++a) {
                const int i = 3 * level + a;
                N[i] = t[a] * s;
                dN[3 * i + 0] = dt[a][0] * s;
                dN[3 * i + 1] = dt[a][1] * s;
                dN[3 * i + 2] = t[a] * ds;
            }
        }
        return;
    }
    case ElementType::pyramid: {
        // The rational first-order basis, conforming with P1 tetrahedra on the triangular faces
        // and Q1 hexahedra on the base: the apex's is w; base corner (s, t) in {-1, 1}^2:
        // (1 - w + s u)(1 - w + t v) / (4 (1 - w)), bilinear on the base. Singular only at the
        // apex, where no quadrature point lies: there the base corners' values are their limit
        // 0 and their gradients the limit along the axis, (s, t, -1) / 4.
        const double u = xi[0], v = xi[1], w = xi[2];
        const double r = 1 - w;
        const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int i = 0; i < 4; ++i) {
            const double s = corner[i][0], t = corner[i][1];
            if (r <= 0) {
                N[i] = 0;
                dN[3 * i + 0] = 0.25 * s, dN[3 * i + 1] = 0.25 * t, dN[3 * i + 2] = -0.25;
                continue;
            }
            const double a = r + s * u, b = r + t * v;
            N[i] = a * b / (4 * r);
            dN[3 * i + 0] = s * b / (4 * r);
            dN[3 * i + 1] = t * a / (4 * r);
            dN[3 * i + 2] = (-(a + b) * r + a * b) / (4 * r * r);
        }
        N[4] = w;
        dN[12] = 0, dN[13] = 0, dN[14] = 1;
        return;
    }
    }
    throw std::invalid_argument("lagrange1_basis: unknown element type");
}

std::vector<double> reference_nodes(ElementType type)
{
    switch (type) {
    case ElementType::line: return {-1, 1};
    case ElementType::triangle: return {0, 0, 1, 0, 0, 1};
    case ElementType::tetrahedron: return {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    case ElementType::quadrilateral: return {-1, -1, 1, -1, 1, 1, -1, 1};
    case ElementType::hexahedron:
        return {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
    case ElementType::prism: return {0, 0, -1, 1, 0, -1, 0, 1, -1, 0, 0, 1, 1, 0, 1, 0, 1, 1};
    case ElementType::pyramid: return {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0, 0, 0, 1};
    }
    throw std::invalid_argument("reference_nodes: unknown element type");
}

ReferenceElement make_reference_element(ElementType type, int order, int quadrature_degree)
{
    return make_reference_element(type, order, quadrature_rule(type, quadrature_degree));
}

ReferenceElement make_reference_element(ElementType type, int order, QuadratureRule rule)
{
    if (order < 1 || order > 4)
        throw std::invalid_argument("make_reference_element: order must be 1..4 (got " +
                                    std::to_string(order) + ")");
    ReferenceElement ref;
    ref.type = type;
    ref.degree = order;
    ref.dim = element_dimension(type);
    ref.nodes = lagrange_node_count(type, order);
    ref.rule = std::move(rule);
    const int nq = ref.rule.size();
    if (order >= 2) {
        lagrange_basis(type, order, ref.rule.points, ref.values, ref.gradients);
        if (ref.values.size() != static_cast<std::size_t>(nq) * ref.nodes ||
            ref.gradients.size() != static_cast<std::size_t>(nq) * ref.nodes * ref.dim)
            throw std::logic_error("make_reference_element: lagrange_basis returned tables of "
                                   "the wrong size");
        return ref;
    }
    ref.values.resize(static_cast<std::size_t>(nq) * ref.nodes);
    ref.gradients.resize(static_cast<std::size_t>(nq) * ref.nodes * ref.dim);
    for (int q = 0; q < nq; ++q) {
        lagrange1_basis(type, &ref.rule.points[q * ref.dim], &ref.values[q * ref.nodes],
                        &ref.gradients[static_cast<std::size_t>(q) * ref.nodes * ref.dim]);
    }
    return ref;
}

}  // namespace gpufem
