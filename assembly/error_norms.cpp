#include "assembly/error_norms.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "assembly/element_data.hpp"
#include "assembly/jacobian.hpp"
#include "assembly/reference_element.hpp"

namespace gpufem {
namespace {

/// Largest extent of the mesh's bounding box (1 for an empty mesh).
double mesh_extent(const Mesh& mesh)
{
    double extent = 0;
    for (int d = 0; d < 3; ++d) {
        double lo = 0, hi = 0;
        for (index_type i = 0; i < mesh.num_nodes(); ++i) {
            const double x = mesh.coordinates[3 * static_cast<std::size_t>(i) + d];
            lo = i == 0 ? x : std::min(lo, x);
            hi = i == 0 ? x : std::max(hi, x);
        }
        extent = std::max(extent, hi - lo);
    }
    return extent > 0 ? extent : 1.0;
}

/// grad[d][p] of the expression at the points xyz (3 per point) by the sixth-order central
/// difference (45 (f1 - f-1) - 9 (f2 - f-2) + (f3 - f-3)) / (60 h) in each direction.
std::vector<std::vector<double>> exact_gradients(const Expression& exact,
                                                 const std::vector<double>& xyz, int dim,
                                                 double h)
{
    const std::size_t points = xyz.size() / 3;
    const double weight[3] = {45.0, -9.0, 1.0};
    std::vector<std::vector<double>> grad(dim, std::vector<double>(points, 0.0));
    std::vector<double> shifted(xyz), plus(points), minus(points);
    for (int d = 0; d < dim; ++d)
        for (int s = 1; s <= 3; ++s) {
            for (std::size_t p = 0; p < points; ++p) shifted[3 * p + d] = xyz[3 * p + d] + s * h;
            exact.evaluate(shifted, plus);
            for (std::size_t p = 0; p < points; ++p) shifted[3 * p + d] = xyz[3 * p + d] - s * h;
            exact.evaluate(shifted, minus);
            for (std::size_t p = 0; p < points; ++p) {
                shifted[3 * p + d] = xyz[3 * p + d];
                grad[d][p] += weight[s - 1] * (plus[p] - minus[p]) / (60.0 * h);
            }
        }
    return grad;
}

/// Squared L2 and H1-seminorm errors and the squared L2 norm of the exact solution, summed
/// over cells (value, grad: the exact solution at every quadrature point, [e][q]).
template <int DIM>
void integrate_errors(const Mesh& mesh, const ReferenceElement& ref, std::span<const double> u,
                      const std::vector<double>& value,
                      const std::vector<std::vector<double>>& grad, double& l2, double& h1,
                      double& l2_exact)
{
    const int nq = ref.num_points(), npe = mesh.nodes_per_cell;
    const index_type cells = mesh.num_cells();
    double sum_l2 = 0, sum_h1 = 0, sum_exact = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum_l2, sum_h1, sum_exact)
    for (index_type e = 0; e < cells; ++e) {
        const index_type* nodes = &mesh.cells[static_cast<std::size_t>(e) * npe];
        for (int q = 0; q < nq; ++q) {
            const double* dN = &ref.gradients[static_cast<std::size_t>(q) * npe * DIM];
            double J[DIM][DIM], inv[DIM][DIM];
            cell_jacobian<DIM>(npe, nodes, mesh.coordinates.data(), dN, J);
            const double w = ref.rule.weights[q] * std::abs(invert_jacobian<DIM>(J, inv));
            double uh = 0, guh[DIM] = {};
            for (int i = 0; i < npe; ++i) {
                const double ui = u[nodes[i]];
                uh += ref.values[static_cast<std::size_t>(q) * npe + i] * ui;
                for (int d = 0; d < DIM; ++d)
                    for (int c = 0; c < DIM; ++c) guh[d] += inv[c][d] * dN[i * DIM + c] * ui;
            }
            const std::size_t p = static_cast<std::size_t>(e) * nq + q;
            sum_l2 += w * (value[p] - uh) * (value[p] - uh);
            sum_exact += w * value[p] * value[p];
            for (int d = 0; d < DIM; ++d)
                sum_h1 += w * (grad[d][p] - guh[d]) * (grad[d][p] - guh[d]);
        }
    }
    l2 = sum_l2, h1 = sum_h1, l2_exact = sum_exact;
}

}  // namespace

std::vector<double> nodal_values(const Mesh& mesh, const Expression& expr)
{
    std::vector<double> out(mesh.num_nodes());
    expr.evaluate(mesh.coordinates, out);
    return out;
}

ErrorNorms compute_errors(const Mesh& mesh, std::span<const double> u, const Expression& exact)
{
    if (u.size() != static_cast<std::size_t>(mesh.num_nodes()))
        throw std::invalid_argument("compute_errors: one value per node expected");
    const ReferenceElement ref =
        make_reference_element(mesh.cell_type, mesh.degree, 2 * mesh.degree + 2);

    // Exact values and gradients at every quadrature point (bulk: 1 + 6*dim evaluations).
    const std::vector<double> xyz = quadrature_point_coordinates(mesh, ref);
    std::vector<double> value(xyz.size() / 3);
    exact.evaluate(xyz, value);
    const auto grad = exact_gradients(exact, xyz, mesh.dim, 1e-3 * mesh_extent(mesh));

    ErrorNorms norms;
    double l2 = 0, h1 = 0, l2_exact = 0;
    dispatch_dimension(mesh.dim, [&]<int DIM>() {
        integrate_errors<DIM>(mesh, ref, u, value, grad, l2, h1, l2_exact);
    });
    norms.l2 = std::sqrt(l2);
    norms.h1_semi = std::sqrt(h1);
    norms.l2_exact = std::sqrt(l2_exact);
    const std::vector<double> nodal = nodal_values(mesh, exact);
    for (std::size_t i = 0; i < nodal.size(); ++i)
        norms.max_nodal = std::max(norms.max_nodal, std::abs(nodal[i] - u[i]));
    return norms;
}

}  // namespace gpufem
