#include "assembly/quadrature.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace gpufem {
namespace {

/// Eigenvalues (diagonal of a on return) and eigenvectors (columns of v) of the symmetric
/// n x n matrix a (row-major), by cyclic Jacobi rotations.
void symmetric_eigen(int n, std::vector<double>& a, std::vector<double>& v)
{
    v.assign(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i) v[i * n + i] = 1.0;
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
        if (off < 1e-64) return;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                const double apq = a[p * n + q];
                if (apq == 0.0) continue;
                const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                const double t = (theta >= 0 ? 1.0 : -1.0) /
                                 (std::abs(theta) + std::sqrt(theta * theta + 1.0));
                const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; ++k) {  // a <- a R (columns p, q)
                    const double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; ++k) {  // a <- R^T a (rows p, q)
                    const double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; ++k) {
                    const double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
}

/// Gauss-Jacobi rule mapped to [0, 1] for the weight (1-u)^alpha.
void unit_gauss_jacobi(int n, int alpha, std::vector<double>& x, std::vector<double>& w)
{
    gauss_jacobi(n, alpha, x, w);
    const double scale = std::pow(0.5, alpha + 1);
    for (int i = 0; i < n; ++i) x[i] = 0.5 * (x[i] + 1.0), w[i] *= scale;
}

QuadratureRule tensor_gauss(int dim, int n)
{
    std::vector<double> x, w;
    gauss_jacobi(n, 0, x, w);
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

/// Collapsed Gauss-Jacobi rule on the unit simplex, exact to degree: triangle x = u,
/// y = (1-u) v with dx dy = (1-u) du dv; tetrahedron x = u, y = (1-u) v, z = (1-u)(1-v) t with
/// Jacobian (1-u)^2 (1-v). The Jacobian factors are the Jacobi weights of u and v.
QuadratureRule collapsed_gauss_jacobi(int dim, int degree)
{
    const int n = degree / 2 + 1;
    std::vector<double> u, wu, v, wv, t, wt;
    unit_gauss_jacobi(n, dim - 1, u, wu);
    unit_gauss_jacobi(n, dim == 3 ? 1 : 0, v, wv);
    unit_gauss_jacobi(n, 0, t, wt);
    QuadratureRule rule;
    rule.dim = dim;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (dim == 2) {
                rule.points.insert(rule.points.end(), {u[i], (1.0 - u[i]) * v[j]});
                rule.weights.push_back(wu[i] * wv[j]);
                continue;
            }
            for (int k = 0; k < n; ++k) {
                rule.points.insert(rule.points.end(), {u[i], (1.0 - u[i]) * v[j],
                                                       (1.0 - u[i]) * (1.0 - v[j]) * t[k]});
                rule.weights.push_back(wu[i] * wv[j] * wt[k]);
            }
        }
    return rule;
}

/// Gauss points per direction of a tensor rule exact to degree.
int gauss_points(int degree) { return degree / 2 + 1; }

QuadratureRule line_rule(int degree) { return tensor_gauss(1, gauss_points(degree)); }
QuadratureRule quadrilateral_rule(int degree) { return tensor_gauss(2, gauss_points(degree)); }
QuadratureRule hexahedron_rule(int degree) { return tensor_gauss(3, gauss_points(degree)); }

QuadratureRule triangle_rule(int degree)
{
    if (degree <= 1) return QuadratureRule{2, {1.0 / 3, 1.0 / 3}, {0.5}};
    if (degree == 2)
        return QuadratureRule{2, {1.0 / 6, 1.0 / 6, 2.0 / 3, 1.0 / 6, 1.0 / 6, 2.0 / 3},
                              {1.0 / 6, 1.0 / 6, 1.0 / 6}};
    return collapsed_gauss_jacobi(2, degree);
}

QuadratureRule tetrahedron_rule(int degree)
{
    if (degree <= 1) return QuadratureRule{3, {0.25, 0.25, 0.25}, {1.0 / 6}};
    if (degree == 2) {
        const double a = 0.5854101966249685, b = 0.1381966011250105;
        return QuadratureRule{3, {b, b, b, a, b, b, b, a, b, b, b, a},
                              {1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 24}};
    }
    return collapsed_gauss_jacobi(3, degree);
}

/// The triangle's rule times Gauss in w on [-1, 1].
QuadratureRule prism_rule(int degree)
{
    const QuadratureRule base = triangle_rule(degree);
    const QuadratureRule line = tensor_gauss(1, gauss_points(degree));
    QuadratureRule rule;
    rule.dim = 3;
    for (int l = 0; l < line.size(); ++l)
        for (int b = 0; b < base.size(); ++b) {
            rule.points.insert(rule.points.end(), {base.points[2 * b], base.points[2 * b + 1], line.points[l]});
            rule.weights.push_back(base.weights[b] * line.weights[l]);
        }
    return rule;
}

/// Collapsed onto the cube: u = a (1 - w), v = b (1 - w), a, b Gauss on [-1, 1], w = (1 + t) / 2
/// with t Gauss-Jacobi for the collapse's Jacobian (1 - w)^2 = (1 - t)^2 / 4 (and dw = dt / 2).
QuadratureRule pyramid_rule(int degree)
{
    const int n_gauss = gauss_points(degree);
    std::vector<double> a, wa, t, wt;
    gauss_jacobi(n_gauss, 0, a, wa);
    gauss_jacobi(n_gauss + 1, 2, t, wt);
    QuadratureRule rule;
    rule.dim = 3;
    for (std::size_t k = 0; k < t.size(); ++k) {
        const double w = 0.5 * (1 + t[k]);
        for (std::size_t j = 0; j < a.size(); ++j)
            for (std::size_t i = 0; i < a.size(); ++i) {
                rule.points.insert(rule.points.end(), {a[i] * (1 - w), a[j] * (1 - w), w});
                rule.weights.push_back(wa[i] * wa[j] * wt[k] / 8);
            }
    }
    return rule;
}

/// Each shape's rule maker, in ElementType order: a new shape adds its line here.
constexpr std::array<QuadratureRule (*)(int), element_type_count> rule_makers = {
    line_rule, triangle_rule, quadrilateral_rule, tetrahedron_rule, hexahedron_rule, prism_rule, pyramid_rule};

}  // namespace

void gauss_jacobi(int n, int alpha, std::vector<double>& x, std::vector<double>& w)
{
    if (n < 1 || alpha < 0) throw std::invalid_argument("gauss_jacobi: n >= 1, alpha >= 0");
    // Golub-Welsch: the nodes are the eigenvalues of the Jacobi matrix of the monic Jacobi
    // polynomials P_k^(alpha, 0); the weights mu0 * (first eigenvector component)^2.
    const double a = alpha;
    std::vector<double> m(static_cast<std::size_t>(n) * n, 0.0), vectors;
    for (int k = 0; k < n; ++k) {
        const double s = 2.0 * k + a;
        m[k * n + k] = s == 0.0 ? 0.0 : -a * a / (s * (s + 2.0));
        if (k + 1 < n) {
            const double j = k + 1.0, sj = 2.0 * j + a;
            const double b = std::sqrt(4.0 * j * (j + a) * j * (j + a) /
                                       (sj * sj * (sj + 1.0) * (sj - 1.0)));
            m[k * n + k + 1] = m[(k + 1) * n + k] = b;
        }
    }
    symmetric_eigen(n, m, vectors);
    const double mu0 = std::pow(2.0, a + 1.0) / (a + 1.0);
    x.resize(n);
    w.resize(n);
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = 1; i < n; ++i)  // ascending nodes
        for (int k = i; k > 0 && m[order[k] * (n + 1)] < m[order[k - 1] * (n + 1)]; --k)
            std::swap(order[k], order[k - 1]);
    for (int i = 0; i < n; ++i) {
        const int col = order[i];
        x[i] = m[col * n + col];
        w[i] = mu0 * vectors[col] * vectors[col];
    }
}

QuadratureRule grundmann_moller_rule(int dim, int degree)
{
    if (dim != 2 && dim != 3) throw std::invalid_argument("grundmann_moller_rule: dim 2 or 3");
    const int s = degree <= 1 ? 0 : degree / 2;  // the smallest s with 2s + 1 >= degree
    const int d = 2 * s + 1, n = dim;
    const auto factorial = [](int k) {
        double f = 1;
        for (int j = 2; j <= k; ++j) f *= j;
        return f;
    };
    QuadratureRule rule;
    rule.dim = dim;
    for (int i = 0; i <= s; ++i) {
        const double scale = d + n - 2 * i;
        const double weight = (i % 2 ? -1.0 : 1.0) * std::pow(2.0, -2 * s) * std::pow(scale, d) /
                              (factorial(i) * factorial(d + n - i));
        // Every beta in N^(n+1) with |beta| = s - i: its first n parts give the point.
        const int total = s - i;
        int beta[3] = {0, 0, 0};
        const auto emit = [&] {
            for (int c = 0; c < n; ++c) rule.points.push_back((2.0 * beta[c] + 1.0) / scale);
            rule.weights.push_back(weight);
        };
        for (beta[0] = 0; beta[0] <= total; ++beta[0])
            for (beta[1] = 0; beta[1] <= total - beta[0]; ++beta[1]) {
                if (n == 2) {
                    emit();  // the last part is total - beta[0] - beta[1]
                    continue;
                }
                for (beta[2] = 0; beta[2] <= total - beta[0] - beta[1]; ++beta[2]) emit();
            }
    }
    return rule;
}

QuadratureRule fewest_points_rule(ElementType type, int degree)
{
    if (type == ElementType::tetrahedron && degree >= 3) return grundmann_moller_rule(3, degree);
    return quadrature_rule(type, degree);
}

QuadratureRule quadrature_rule(ElementType type, int degree)
{
    if (degree < 0) throw std::invalid_argument("quadrature degree must be >= 0");
    const auto t = static_cast<std::size_t>(type);
    if (t >= rule_makers.size()) throw std::invalid_argument("quadrature_rule: unknown element type");
    return rule_makers[t](degree);
}

}  // namespace gpufem
