#include "mesh/vandermonde_basis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/gmsh_reference_table.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// One function of the spanning set: u^a v^b w^c (1 - w)^e (e = 0 for simplices).
struct Exponents {
    int a = 0, b = 0, c = 0, e = 0;
};

/// The monomials x^a y^b z^c of total degree <= order (c = 0 in 2D).
std::vector<Exponents> simplex_monomials(int dim, int order)
{
    std::vector<Exponents> out;
    for (int a = 0; a <= order; ++a)
        for (int b = 0; a + b <= order; ++b)
            for (int c = 0; a + b + c <= (dim == 3 ? order : a + b); ++c) out.push_back({a, b, c, 0});
    return out;
}

/// The pyramid's rational space of this order: u^a v^b w^c (1 - w)^(max(a, b) - a - b) for
/// a, b <= order and c <= order - max(a, b) ((order + 1)(order + 2)(2 order + 3) / 6 functions).
std::vector<Exponents> pyramid_functions(int order)
{
    std::vector<Exponents> out;
    for (int a = 0; a <= order; ++a)
        for (int b = 0; b <= order; ++b) {
            const int m = std::max(a, b);
            for (int c = 0; c <= order - m; ++c) out.push_back({a, b, c, m - a - b});
        }
    return out;
}

/// x^k, and 0 for k < 0 (the derivative of a constant).
double power(double x, int k)
{
    return k < 0 ? 0.0 : std::pow(x, k);
}

/// The inverse of the n x n matrix `a` (rows), by Gauss-Jordan elimination with partial
/// pivoting; throws on a singular matrix.
std::vector<double> inverse(std::vector<double> a, std::size_t n)
{
    std::vector<double> inv(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t r = col + 1; r < n; ++r)
            if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
        if (std::abs(a[pivot * n + col]) < 1e-14) throw std::logic_error("vandermonde_basis: singular nodes");
        for (std::size_t k = 0; k < n; ++k) {
            std::swap(a[col * n + k], a[pivot * n + k]);
            std::swap(inv[col * n + k], inv[pivot * n + k]);
        }
        const double scale = 1.0 / a[col * n + col];
        for (std::size_t k = 0; k < n; ++k) {
            a[col * n + k] *= scale;
            inv[col * n + k] *= scale;
        }
        for (std::size_t r = 0; r < n; ++r) {
            if (r == col || a[r * n + col] == 0.0) continue;
            const double factor = a[r * n + col];
            for (std::size_t k = 0; k < n; ++k) {
                a[r * n + k] -= factor * a[col * n + k];
                inv[r * n + k] -= factor * inv[col * n + k];
            }
        }
    }
    return inv;
}

/// prefactor * r^e, and 0 for a zero prefactor: the pyramid's rational functions at its apex
/// (r = 1 - w = 0, where u = v = 0) take their limits along the axis.
double times_power(double prefactor, double r, int e)
{
    return prefactor == 0.0 ? 0.0 : prefactor * std::pow(r, e);
}

/// The value and the dim derivatives of u^a v^b w^c (1 - w)^e at x (dim coordinates).
void evaluate(const Exponents& f, int dim, const double* x, double& value, double* gradient)
{
    const double u = x[0], v = x[1], w = dim == 3 ? x[2] : 0.0, r = 1.0 - w;
    const double uv = power(u, f.a) * power(v, f.b), wc = power(w, f.c);
    value = times_power(uv * wc, r, f.e);
    gradient[0] = times_power(f.a * power(u, f.a - 1) * power(v, f.b) * wc, r, f.e);
    gradient[1] = times_power(f.b * power(u, f.a) * power(v, f.b - 1) * wc, r, f.e);
    if (dim == 3)
        gradient[2] = times_power(uv * f.c * power(w, f.c - 1), r, f.e) - times_power(uv * f.e * wc, r, f.e - 1);
}

/// The inverse Vandermonde matrix of an element: [function][node].
struct Vandermonde {
    int dim = 0;
    std::vector<Exponents> exponents;
    std::vector<double> inverse;
};

Vandermonde make_vandermonde(ElementType type, int order)
{
    const ShapeTraits& shape = cell_shape(type);
    Vandermonde v;
    v.dim = shape.dim;
    v.exponents = type == ElementType::pyramid ? pyramid_functions(order) : simplex_monomials(v.dim, order);
    const std::span<const double> nodes = gmsh_reference_table(shape.gmsh_basis_types[static_cast<std::size_t>(order - 1)]);
    const std::size_t n = v.exponents.size(), dim = static_cast<std::size_t>(v.dim);
    if (nodes.size() != n * dim)
        throw std::logic_error("vandermonde_basis: the reference table's nodes are not the element's");
    std::vector<double> matrix(n * n);
    double unused[3];
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) evaluate(v.exponents[j], v.dim, &nodes[i * dim], matrix[i * n + j], unused);
    v.inverse = inverse(std::move(matrix), n);
    return v;
}

const Vandermonde& vandermonde(ElementType type, int order)
{
    static std::mutex mutex;
    static std::map<std::pair<ElementType, int>, Vandermonde> made;
    const std::lock_guard lock(mutex);
    auto found = made.find({type, order});
    if (found == made.end()) found = made.emplace(std::pair{type, order}, make_vandermonde(type, order)).first;
    return found->second;
}

}  // namespace

bool has_vandermonde_basis(ElementType type, int order)
{
    if (type == ElementType::pyramid) return order >= 1 && order <= 4;
    return (type == ElementType::triangle || type == ElementType::tetrahedron) && (order == 3 || order == 4);
}

void vandermonde_basis(ElementType type, int order, const std::vector<double>& points, std::vector<double>& values,
                       std::vector<double>& gradients)
{
    if (!has_vandermonde_basis(type, order))
        throw std::logic_error("vandermonde_basis: a triangle or tetrahedron of order 3 or 4, or a pyramid of order 1 to 4");
    const Vandermonde& v = vandermonde(type, order);
    const auto dim = static_cast<std::size_t>(v.dim), n = v.exponents.size(), count = points.size() / dim;
    values.assign(count * n, 0.0);
    gradients.assign(count * n * dim, 0.0);
    std::vector<double> m(n), dm(n * 3);
    for (std::size_t p = 0; p < count; ++p) {
        for (std::size_t j = 0; j < n; ++j) evaluate(v.exponents[j], v.dim, &points[p * dim], m[j], &dm[j * 3]);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                const double c = v.inverse[j * n + i];
                values[p * n + i] += m[j] * c;
                for (std::size_t d = 0; d < dim; ++d) gradients[(p * n + i) * dim + d] += dm[j * 3 + d] * c;
            }
    }
}

}  // namespace gpufem
