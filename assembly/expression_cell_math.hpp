#pragma once
// Per-point and per-cell arithmetic of the expression kernels, written once for the host and
// the device (cpu/expression_kernels.cpp and cuda/expression_kernels.cu call these).
#include "assembly/element_data.hpp"
#include "assembly/expression_program.hpp"
#include "assembly/jacobian.hpp"

namespace gpufem {

/// Physical position of quadrature point q of cell e: sum_i N_i(q) x_i.
template <typename V>
GPUFEM_HOST_DEVICE inline void quadrature_position(const ElementArgs<V>& a, long long e, int q,
                                                   double (&p)[3])
{
    p[0] = p[1] = p[2] = 0.0;
    const index_type* nodes = a.cells + e * a.nodes_per_cell;
    for (int i = 0; i < a.nodes_per_cell; ++i) {
        const double n = a.values[q * a.nodes_per_cell + i];
        const V* x = a.coordinates + 3 * static_cast<long long>(nodes[i]);
        for (int c = 0; c < 3; ++c) p[c] += n * static_cast<double>(x[c]);
    }
}

/// Adds cell e's squared-error integrals to sums (l2, h1, l2_exact): at every point of the
/// geometry's quadrature, the exact value and gradient (forward-mode differentiation) of
/// program against u_h = sum_i u_i N_i and its gradient through the isoparametric map.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void cell_error_sums(const ExprInstruction* program,
                                               const ElementArgs<double>& g, long long e,
                                               const V* u, double (&sums)[3])
{
    const int npe = g.nodes_per_cell;
    const index_type* nodes = g.cells + e * npe;
    for (int q = 0; q < g.num_points; ++q) {
        const double* dN = g.gradients + static_cast<long long>(q) * npe * DIM;
        double J[DIM][DIM], inv[DIM][DIM];
        cell_jacobian<DIM>(npe, nodes, g.coordinates, dN, J);
        const double det = invert_jacobian<DIM>(J, inv);
        const double w = g.weights[q] * (det < 0 ? -det : det);
        double uh = 0, guh[DIM] = {};
        for (int i = 0; i < npe; ++i) {
            const double ui = static_cast<double>(u[nodes[i]]);
            uh += g.values[q * npe + i] * ui;
            for (int d = 0; d < DIM; ++d)
                for (int c = 0; c < DIM; ++c) guh[d] += inv[c][d] * dN[i * DIM + c] * ui;
        }
        double p[3];
        quadrature_position(g, e, q, p);
        double grad[3];
        const double value = evaluate_program_gradient(program, p[0], p[1], p[2], grad);
        sums[0] += w * (value - uh) * (value - uh);
        sums[2] += w * value * value;
        for (int d = 0; d < DIM; ++d) sums[1] += w * (grad[d] - guh[d]) * (grad[d] - guh[d]);
    }
}

}  // namespace gpufem
