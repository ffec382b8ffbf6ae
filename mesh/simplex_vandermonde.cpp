#include "mesh/simplex_vandermonde.hpp"

#include <array>
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

/// The exponents of the monomials x^a y^b z^c of total degree <= order (c = 0 in 2D).
std::vector<std::array<int, 3>> monomials(int dim, int order)
{
    std::vector<std::array<int, 3>> out;
    for (int a = 0; a <= order; ++a)
        for (int b = 0; a + b <= order; ++b)
            for (int c = 0; a + b + c <= (dim == 3 ? order : a + b); ++c) out.push_back({a, b, c});
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
        if (std::abs(a[pivot * n + col]) < 1e-14) throw std::logic_error("vandermonde_simplex_basis: singular nodes");
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

/// The inverse Vandermonde matrix of an element: [monomial][node].
struct Vandermonde {
    int dim = 0;
    std::vector<std::array<int, 3>> exponents;
    std::vector<double> inverse;
};

Vandermonde make_vandermonde(ElementType type, int order)
{
    const ShapeTraits& shape = cell_shape(type);
    Vandermonde v;
    v.dim = shape.dim;
    v.exponents = monomials(v.dim, order);
    const std::span<const double> nodes = gmsh_reference_table(shape.gmsh_basis_types[static_cast<std::size_t>(order - 1)]);
    const std::size_t n = v.exponents.size();
    if (nodes.size() != n * static_cast<std::size_t>(v.dim))
        throw std::logic_error("vandermonde_simplex_basis: the reference table's nodes are not the element's");
    std::vector<double> matrix(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double m = 1.0;
            for (int d = 0; d < v.dim; ++d)
                m *= power(nodes[i * static_cast<std::size_t>(v.dim) + static_cast<std::size_t>(d)],
                           v.exponents[j][static_cast<std::size_t>(d)]);
            matrix[i * n + j] = m;
        }
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
    return (type == ElementType::triangle || type == ElementType::tetrahedron) && (order == 3 || order == 4);
}

void vandermonde_simplex_basis(ElementType type, int order, const std::vector<double>& points,
                               std::vector<double>& values, std::vector<double>& gradients)
{
    if (!has_vandermonde_basis(type, order))
        throw std::logic_error("vandermonde_simplex_basis: a triangle or tetrahedron of order 3 or 4");
    const Vandermonde& v = vandermonde(type, order);
    const auto dim = static_cast<std::size_t>(v.dim), n = v.exponents.size(), count = points.size() / dim;
    values.assign(count * n, 0.0);
    gradients.assign(count * n * dim, 0.0);
    std::vector<double> m(n), dm(n * dim);
    for (std::size_t p = 0; p < count; ++p) {
        const double* x = &points[p * dim];
        for (std::size_t j = 0; j < n; ++j) {
            const auto& e = v.exponents[j];
            m[j] = 1.0;
            for (std::size_t d = 0; d < dim; ++d) m[j] *= power(x[d], e[d]);
            for (std::size_t d = 0; d < dim; ++d) {
                double slope = e[d] == 0 ? 0.0 : e[d] * power(x[d], e[d] - 1);
                for (std::size_t o = 0; o < dim; ++o)
                    if (o != d) slope *= power(x[o], e[o]);
                dm[j * dim + d] = slope;
            }
        }
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                const double c = v.inverse[j * n + i];
                values[p * n + i] += m[j] * c;
                for (std::size_t d = 0; d < dim; ++d) gradients[(p * n + i) * dim + d] += dm[j * dim + d] * c;
            }
    }
}

}  // namespace gpufem
