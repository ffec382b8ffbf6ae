#include "assembly/pa_tensor_basis.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "assembly/quadrature.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

constexpr double tolerance = 1e-12;

/// Index of value among points (|difference| < tolerance); throws when it is none of them.
int position_of(double value, const std::vector<double>& points, const char* what)
{
    for (std::size_t i = 0; i < points.size(); ++i)
        if (std::abs(points[i] - value) < tolerance) return static_cast<int>(i);
    throw std::logic_error(std::string("partial assembly: a ") + what +
                           " is not on the tensor lattice (coordinate " + std::to_string(value) + ")");
}

/// Lexicographic positions (x fastest) of the coordinate tuples xs (dim per tuple) on the 1D
/// points; each position taken exactly once.
std::vector<int> lexicographic_order(const std::vector<double>& xs, int dim,
                                     const std::vector<double>& points, const char* what)
{
    const int n1 = static_cast<int>(points.size());
    int total = 1;
    for (int c = 0; c < dim; ++c) total *= n1;
    if (xs.size() != static_cast<std::size_t>(total) * dim)
        throw std::logic_error(std::string("partial assembly: the ") + what + "s are not a tensor product");
    std::vector<int> of_lex(total, -1);
    for (int t = 0; t < total; ++t) {
        int lex = 0;
        for (int c = dim - 1; c >= 0; --c) lex = lex * n1 + position_of(xs[t * dim + c], points, what);
        if (of_lex[lex] >= 0)
            throw std::logic_error(std::string("partial assembly: two ") + what + "s at one lattice point");
        of_lex[lex] = t;
    }
    return of_lex;
}

/// The distinct first coordinates of the tuples, ascending.
std::vector<double> distinct_first_coordinates(const std::vector<double>& xs, int dim)
{
    std::vector<double> out;
    for (std::size_t t = 0; t < xs.size(); t += dim)
        if (std::none_of(out.begin(), out.end(), [&](double v) { return std::abs(v - xs[t]) < tolerance; }))
            out.push_back(xs[t]);
    std::sort(out.begin(), out.end());
    return out;
}

/// Lagrange basis function i of the nodes and its derivative at s.
void lagrange_1d(const std::vector<double>& nodes, int i, double s, double& value, double& slope)
{
    value = 1.0;
    slope = 0.0;
    for (std::size_t m = 0; m < nodes.size(); ++m) {
        if (static_cast<int>(m) == i) continue;
        const double scale = 1.0 / (nodes[i] - nodes[m]);
        slope = slope * (s - nodes[m]) * scale + value * scale;
        value *= (s - nodes[m]) * scale;
    }
}

/// Throws unless every tensor-product basis value equals ref's table.
void check_against_reference(const PaTensorBasis& t, const ReferenceElement& ref)
{
    const int nodes = static_cast<int>(t.gmsh_of_lex.size());
    const int points = static_cast<int>(t.rule_of_lex.size());
    for (int q = 0; q < points; ++q)
        for (int l = 0; l < nodes; ++l) {
            double value = 1.0;
            for (int c = 0, qr = q, lr = l; c < t.dim; ++c, qr /= t.q1, lr /= t.p1)
                value *= t.basis[(qr % t.q1) * t.p1 + lr % t.p1];
            const double expected = ref.values[static_cast<std::size_t>(t.rule_of_lex[q]) * ref.nodes + t.gmsh_of_lex[l]];
            if (std::abs(value - expected) > 1e-10)
                throw std::logic_error("partial assembly: the tensor-product basis differs from the element's");
        }
}

}  // namespace

PaTensorBasis make_pa_tensor_basis(const ReferenceElement& ref)
{
    if (ref.type != ElementType::quadrilateral && ref.type != ElementType::hexahedron)
        throw std::invalid_argument(std::string("format pa: sum factorisation needs quadrilaterals or hexahedra (the mesh has ") +
                                    element_type_name(ref.type) + "s); use lma or an assembled format");
    PaTensorBasis t;
    t.dim = ref.dim;
    const std::vector<double> node_xi = ref.degree == 1 ? reference_nodes(ref.type) : lagrange_reference_nodes(ref.type, ref.degree);
    const std::vector<double> nodes_1d = distinct_first_coordinates(node_xi, t.dim);
    const std::vector<double> points_1d = distinct_first_coordinates(ref.rule.points, t.dim);
    t.p1 = static_cast<int>(nodes_1d.size());
    t.q1 = static_cast<int>(points_1d.size());
    t.nodes_1d = nodes_1d;
    t.points_1d = points_1d;
    t.gmsh_of_lex = lexicographic_order(node_xi, t.dim, nodes_1d, "node");
    t.rule_of_lex = lexicographic_order(ref.rule.points, t.dim, points_1d, "quadrature point");
    for (const int q : t.rule_of_lex) t.weights_of_lex.push_back(ref.rule.weights[static_cast<std::size_t>(q)]);
    t.basis.resize(static_cast<std::size_t>(t.q1) * t.p1);
    t.derivative.resize(t.basis.size());
    for (int q = 0; q < t.q1; ++q)
        for (int i = 0; i < t.p1; ++i)
            lagrange_1d(nodes_1d, i, points_1d[q], t.basis[q * t.p1 + i], t.derivative[q * t.p1 + i]);
    t.derivative_at_nodes.resize(static_cast<std::size_t>(t.p1) * t.p1);
    for (int k = 0; k < t.p1; ++k)
        for (int i = 0; i < t.p1; ++i) {
            double value = 0;
            lagrange_1d(nodes_1d, i, nodes_1d[k], value, t.derivative_at_nodes[k * t.p1 + i]);
        }
    check_against_reference(t, ref);
    return t;
}

namespace {

/// Whether projections equals the tensor product of the coarse 1D basis (nodes_c) at the fine
/// nodes, coarse columns through local_of_lex.
bool is_tensor_product(const PaTensorBasis& fine, const std::vector<double>& nodes_c,
                       const std::vector<int>& local_of_lex, const std::vector<double>& projections)
{
    const int pc = static_cast<int>(nodes_c.size()), ncl = static_cast<int>(local_of_lex.size());
    const int npe = static_cast<int>(fine.gmsh_of_lex.size());
    for (int l = 0; l < npe; ++l)
        for (int m = 0; m < ncl; ++m) {
            double value = 1.0, slope = 0.0, factor = 0.0;
            for (int c = 0, lr = l, mr = m; c < fine.dim; ++c, lr /= fine.p1, mr /= pc) {
                lagrange_1d(nodes_c, mr % pc, fine.nodes_1d[lr % fine.p1], factor, slope);
                value *= factor;
            }
            const double given = projections[static_cast<std::size_t>(fine.gmsh_of_lex[l]) * ncl + local_of_lex[m]];
            if (std::abs(value - given) > 1e-12) return false;
        }
    return true;
}

}  // namespace

std::optional<PaCoarseTables> pa_coarse_tables(const PaTensorBasis& fine, ElementType type, int ncl,
                                               const std::vector<double>& projections)
{
    const int pc = static_cast<int>(std::lround(std::pow(ncl, 1.0 / fine.dim)));
    if (pc < 2 || (fine.dim == 2 ? pc * pc : pc * pc * pc) != ncl ||
        projections.size() != fine.gmsh_of_lex.size() * static_cast<std::size_t>(ncl))
        return std::nullopt;
    const std::vector<double> xi = pc == 2 ? reference_nodes(type) : lagrange_reference_nodes(type, pc - 1);
    const std::vector<double> nodes_c = distinct_first_coordinates(xi, fine.dim);
    if (static_cast<int>(nodes_c.size()) != pc) return std::nullopt;
    PaCoarseTables t;
    t.pc = pc;
    try {
        t.local_of_lex = lexicographic_order(xi, fine.dim, nodes_c, "coarse node");
    } catch (const std::logic_error&) {
        return std::nullopt;
    }
    if (!is_tensor_product(fine, nodes_c, t.local_of_lex, projections)) return std::nullopt;
    t.basis.resize(static_cast<std::size_t>(fine.q1) * pc);
    t.derivative.resize(t.basis.size());
    for (int q = 0; q < fine.q1; ++q)
        for (int i = 0; i < pc; ++i)
            lagrange_1d(nodes_c, i, fine.points_1d[q], t.basis[q * pc + i], t.derivative[q * pc + i]);
    t.at_nodes.resize(static_cast<std::size_t>(fine.p1) * pc);
    for (int n = 0; n < fine.p1; ++n)
        for (int i = 0; i < pc; ++i) {
            double slope = 0;
            lagrange_1d(nodes_c, i, fine.nodes_1d[n], t.at_nodes[n * pc + i], slope);
        }
    return t;
}

}  // namespace gpufem
