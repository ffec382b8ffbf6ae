#include "assembly/error_norms.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "assembly/element_data.hpp"
#include "assembly/reference_element.hpp"

namespace gpufem {

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
    const bool box = mesh.cell_type == ElementType::quadrilateral ||
                     mesh.cell_type == ElementType::hexahedron;
    const ReferenceElement ref = make_reference_element(mesh.cell_type, box ? 5 : 4);
    const int nq = ref.num_points(), npe = mesh.nodes_per_cell, dim = mesh.dim;
    const index_type cells = mesh.num_cells();

    // Exact values and gradients at every quadrature point (bulk: 1 + 2*dim evaluations).
    const std::vector<double> xyz = quadrature_point_coordinates(mesh, ref);
    const std::size_t points = xyz.size() / 3;
    std::vector<double> value(points);
    exact.evaluate(xyz, value);
    const double h = 1e-6;
    std::vector<std::vector<double>> grad(dim, std::vector<double>(points));
    {
        std::vector<double> shifted(xyz), plus(points), minus(points);
        for (int d = 0; d < dim; ++d) {
            for (std::size_t p = 0; p < points; ++p) shifted[3 * p + d] = xyz[3 * p + d] + h;
            exact.evaluate(shifted, plus);
            for (std::size_t p = 0; p < points; ++p) shifted[3 * p + d] = xyz[3 * p + d] - h;
            exact.evaluate(shifted, minus);
            for (std::size_t p = 0; p < points; ++p) {
                shifted[3 * p + d] = xyz[3 * p + d];
                grad[d][p] = (plus[p] - minus[p]) / (2 * h);
            }
        }
    }

    ErrorNorms norms;
    double l2 = 0, h1 = 0, l2_exact = 0;
#pragma omp parallel for schedule(static) reduction(+ : l2, h1, l2_exact)
    for (index_type e = 0; e < cells; ++e) {
        const index_type* nodes = &mesh.cells[static_cast<std::size_t>(e) * npe];
        for (int q = 0; q < nq; ++q) {
            const double* dN = &ref.gradients[static_cast<std::size_t>(q) * npe * dim];
            double J[3][3] = {};
            for (int i = 0; i < npe; ++i)
                for (int d = 0; d < dim; ++d)
                    for (int c = 0; c < dim; ++c)
                        J[d][c] += mesh.coordinates[3 * static_cast<std::size_t>(nodes[i]) + d] *
                                   dN[i * dim + c];
            double inv[3][3] = {}, det;
            if (dim == 2) {
                det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
                inv[0][0] = J[1][1] / det, inv[0][1] = -J[0][1] / det;
                inv[1][0] = -J[1][0] / det, inv[1][1] = J[0][0] / det;
            } else {
                det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                      J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                      J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) {
                        const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3,
                                  c2 = (r + 2) % 3;
                        inv[r][c] = (J[r1][c1] * J[r2][c2] - J[r1][c2] * J[r2][c1]) / det;
                    }
            }
            const double w = ref.rule.weights[q] * std::abs(det);
            double uh = 0, guh[3] = {0, 0, 0};
            for (int i = 0; i < npe; ++i) {
                const double ui = u[nodes[i]];
                uh += ref.values[q * npe + i] * ui;
                for (int d = 0; d < dim; ++d)
                    for (int c = 0; c < dim; ++c) guh[d] += inv[c][d] * dN[i * dim + c] * ui;
            }
            const std::size_t p = static_cast<std::size_t>(e) * nq + q;
            l2 += w * (value[p] - uh) * (value[p] - uh);
            l2_exact += w * value[p] * value[p];
            for (int d = 0; d < dim; ++d) h1 += w * (grad[d][p] - guh[d]) * (grad[d][p] - guh[d]);
        }
    }
    norms.l2 = std::sqrt(l2);
    norms.h1_semi = std::sqrt(h1);
    norms.l2_exact = std::sqrt(l2_exact);
    const std::vector<double> nodal = nodal_values(mesh, exact);
    for (std::size_t i = 0; i < nodal.size(); ++i)
        norms.max_nodal = std::max(norms.max_nodal, std::abs(nodal[i] - u[i]));
    return norms;
}

}  // namespace gpufem
