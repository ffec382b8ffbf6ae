#include "assembly/reference_element.hpp"

#include <cmath>
#include <stdexcept>

namespace gpufem {
namespace {

/// Gauss-Legendre points and weights on [-1, 1] (Newton iteration on Legendre polynomials).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w)
{
    x.assign(n, 0.0);
    w.assign(n, 0.0);
    const double pi = std::acos(-1.0);
    for (int i = 0; i < n; ++i) {
        double z = std::cos(pi * (i + 0.75) / (n + 0.5));
        double dp = 1.0;
        for (int it = 0; it < 100; ++it) {
            double p0 = 1.0, p1 = z;
            for (int k = 2; k <= n; ++k) {
                const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            if (n == 1) p1 = z, p0 = 1.0;
            dp = n * (z * p1 - p0) / (z * z - 1.0);
            const double dz = p1 / dp;
            z -= dz;
            if (std::abs(dz) < 1e-16) break;
        }
        x[n - 1 - i] = z;
        w[n - 1 - i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

QuadratureRule tensor_gauss(int dim, int n)
{
    std::vector<double> x, w;
    gauss_legendre(n, x, w);
    QuadratureRule rule;
    rule.dim = dim;
    const int total = dim == 1 ? n : dim == 2 ? n * n : n * n * n;
    for (int q = 0; q < total; ++q) {
        const int i = q % n, j = (q / n) % n, k = q / (n * n);
        double weight = w[i];
        rule.points.push_back(x[i]);
        if (dim >= 2) rule.points.push_back(x[j]), weight *= w[j];
        if (dim >= 3) rule.points.push_back(x[k]), weight *= w[k];
        rule.weights.push_back(weight);
    }
    return rule;
}

/// Collapsed Gauss rule on the unit simplex (Duffy map from the unit box), exact to degree.
QuadratureRule collapsed_gauss(int dim, int degree)
{
    const int n = (degree + dim + 1) / 2;  // ceil((degree + dim) / 2) points per direction
    std::vector<double> x, w;
    gauss_legendre(n, x, w);
    for (int i = 0; i < n; ++i) x[i] = 0.5 * (x[i] + 1.0), w[i] *= 0.5;  // to [0, 1]
    QuadratureRule rule;
    rule.dim = dim;
    if (dim == 2) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const double u = x[i], v = x[j];
                rule.points.insert(rule.points.end(), {u, (1.0 - u) * v});
                rule.weights.push_back(w[i] * w[j] * (1.0 - u));
            }
    } else {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                for (int k = 0; k < n; ++k) {
                    const double u = x[i], v = x[j], t = x[k];
                    rule.points.insert(rule.points.end(),
                                       {u, (1.0 - u) * v, (1.0 - u) * (1.0 - v) * t});
                    rule.weights.push_back(w[i] * w[j] * w[k] * (1.0 - u) * (1.0 - u) * (1.0 - v));
                }
    }
    return rule;
}

}  // namespace

QuadratureRule quadrature_rule(ElementType type, int degree)
{
    if (degree < 0) throw std::invalid_argument("quadrature degree must be >= 0");
    const int n_gauss = degree / 2 + 1;
    switch (type) {
    case ElementType::line: return tensor_gauss(1, n_gauss);
    case ElementType::quadrilateral: return tensor_gauss(2, n_gauss);
    case ElementType::hexahedron: return tensor_gauss(3, n_gauss);
    case ElementType::triangle:
        if (degree <= 1) return QuadratureRule{2, {1.0 / 3, 1.0 / 3}, {0.5}};
        if (degree == 2)
            return QuadratureRule{2, {1.0 / 6, 1.0 / 6, 2.0 / 3, 1.0 / 6, 1.0 / 6, 2.0 / 3},
                                  {1.0 / 6, 1.0 / 6, 1.0 / 6}};
        return collapsed_gauss(2, degree);
    case ElementType::tetrahedron:
        if (degree <= 1) return QuadratureRule{3, {0.25, 0.25, 0.25}, {1.0 / 6}};
        if (degree == 2) {
            const double a = 0.5854101966249685, b = 0.1381966011250105;
            return QuadratureRule{3, {b, b, b, a, b, b, b, a, b, b, b, a},
                                  {1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 24}};
        }
        return collapsed_gauss(3, degree);
    }
    throw std::invalid_argument("quadrature_rule: unknown element type");
}

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
    }
    throw std::invalid_argument("reference_nodes: unknown element type");
}

ReferenceElement make_reference_element(ElementType type, int quadrature_degree)
{
    ReferenceElement ref;
    ref.type = type;
    ref.dim = element_dimension(type);
    ref.nodes = element_node_count(type);
    ref.rule = quadrature_rule(type, quadrature_degree);
    const int nq = ref.rule.size();
    ref.values.resize(static_cast<std::size_t>(nq) * ref.nodes);
    ref.gradients.resize(static_cast<std::size_t>(nq) * ref.nodes * ref.dim);
    for (int q = 0; q < nq; ++q) {
        lagrange1_basis(type, &ref.rule.points[q * ref.dim], &ref.values[q * ref.nodes],
                        &ref.gradients[static_cast<std::size_t>(q) * ref.nodes * ref.dim]);
    }
    return ref;
}

}  // namespace gpufem
