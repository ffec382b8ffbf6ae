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

/// What a point's error terms need from the cell's nodes: the Jacobian (J[d][c] = sum_i
/// x_i,d dN_i,c), u_h, its reference gradient (sum_i dN_i,c u_i) and the physical position,
/// 16 sums over the nodes that can be split among threads and added.
struct PointNodeSums {
    static constexpr int count = 16;
    double v[count] = {};  ///< J (9, row-major 3 x 3), u_h, reference gradient (3), position (3)
};

/// Adds nodes first, first + step, ... (< npe) of point q into s; x(i, c) and ui(i) read node
/// i's coordinate c and solution value.
template <int DIM, typename X, typename U>
GPUFEM_HOST_DEVICE inline void add_point_node_sums(const ElementArgs<double>& g, int npe, int q, int first, int step,
                                                   const X& x, const U& ui, PointNodeSums& s)
{
    const double* dN = g.gradients + static_cast<long long>(q) * npe * DIM;
    const double* N = g.values + static_cast<long long>(q) * npe;
    for (int i = first; i < npe; i += step) {
        const double value_i = ui(i);
        for (int d = 0; d < DIM; ++d)
            for (int c = 0; c < DIM; ++c) s.v[3 * d + c] += x(i, d) * dN[i * DIM + c];
        s.v[9] += N[i] * value_i;
        for (int c = 0; c < DIM; ++c) s.v[10 + c] += dN[i * DIM + c] * value_i;
        for (int c = 0; c < 3; ++c) s.v[13 + c] += N[i] * x(i, c);
    }
}

/// Point q's terms (l2, h1, l2_exact) from its node sums added into sums: the exact value and
/// gradient of program (forward-mode differentiation) at the point against u_h and its
/// gradient through the isoparametric map.
template <int DIM>
GPUFEM_HOST_DEVICE inline void add_point_error_terms(const ExprInstruction* program, const ElementArgs<double>& g,
                                                     int q, const PointNodeSums& s, double (&sums)[3])
{
    double J[DIM][DIM], inv[DIM][DIM];
    for (int d = 0; d < DIM; ++d)
        for (int c = 0; c < DIM; ++c) J[d][c] = s.v[3 * d + c];
    const double det = invert_jacobian<DIM>(J, inv);
    const double w = g.weights[q] * (det < 0 ? -det : det);
    const double uh = s.v[9];
    double guh[DIM] = {};
    for (int d = 0; d < DIM; ++d)
        for (int c = 0; c < DIM; ++c) guh[d] += inv[c][d] * s.v[10 + c];
    double grad[3];
    const double value = evaluate_program_gradient(program, s.v[13], s.v[14], s.v[15], grad);
    sums[0] += w * (value - uh) * (value - uh);
    sums[2] += w * value * value;
    for (int d = 0; d < DIM; ++d) sums[1] += w * (grad[d] - guh[d]) * (grad[d] - guh[d]);
}

/// cell_error_sums for cells of NPE nodes, or of g.nodes_per_cell with NPE = 0. NPE > 0: the
/// nodes' coordinates and solution values are read once into registers; NPE = 0: at every
/// point from memory. The arithmetic and its order are the same either way.
template <int DIM, int NPE, typename V>
GPUFEM_HOST_DEVICE inline void cell_error_sums_of(const ExprInstruction* program,
                                                  const ElementArgs<double>& g, long long e,
                                                  const V* u, double (&sums)[3])
{
    const int npe = NPE > 0 ? NPE : g.nodes_per_cell;
    const index_type* nodes = g.cells + e * npe;
    constexpr int kept = NPE > 0 ? NPE : 1;
    double kept_x[kept][3], kept_u[kept];
    if constexpr (NPE > 0) {
        for (int i = 0; i < NPE; ++i) {
            const double* xi = g.coordinates + 3 * static_cast<long long>(nodes[i]);
            for (int c = 0; c < 3; ++c) kept_x[i][c] = xi[c];
            kept_u[i] = static_cast<double>(u[nodes[i]]);
        }
    }
    const auto x = [&](int i, int c) {
        if constexpr (NPE > 0) return kept_x[i][c];
        else return g.coordinates[3 * static_cast<long long>(nodes[i]) + c];
    };
    const auto ui = [&](int i) {
        if constexpr (NPE > 0) return kept_u[i];
        else return static_cast<double>(u[nodes[i]]);
    };
    for (int q = 0; q < g.num_points; ++q) {
        PointNodeSums s;
        add_point_node_sums<DIM>(g, npe, q, 0, 1, x, ui, s);
        add_point_error_terms<DIM>(program, g, q, s, sums);
    }
}

/// The most nodes a cell may have for cell_error_sums to keep them in registers (the larger
/// cells take a warp each on the device).
inline constexpr int largest_cell_in_registers = 10;

/// Adds cell e's squared-error integrals to sums (l2, h1, l2_exact): at every point of the
/// geometry's quadrature, the exact value and gradient (forward-mode differentiation) of
/// program against u_h = sum_i u_i N_i and its gradient through the isoparametric map. The
/// common small cells (P1-P2 triangles and tetrahedra, Q1-Q2 quadrilaterals, Q1 hexahedra)
/// keep their nodes in registers; the others read them again at every point.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void cell_error_sums(const ExprInstruction* program,
                                               const ElementArgs<double>& g, long long e,
                                               const V* u, double (&sums)[3])
{
    switch (g.nodes_per_cell) {
    case 3: if constexpr (DIM == 2) return cell_error_sums_of<2, 3>(program, g, e, u, sums); break;
    case 4: return cell_error_sums_of<DIM, 4>(program, g, e, u, sums);
    case 6: if constexpr (DIM == 2) return cell_error_sums_of<2, 6>(program, g, e, u, sums); break;
    case 8: if constexpr (DIM == 3) return cell_error_sums_of<3, 8>(program, g, e, u, sums); break;
    case 9: if constexpr (DIM == 2) return cell_error_sums_of<2, 9>(program, g, e, u, sums); break;
    case 10: if constexpr (DIM == 3) return cell_error_sums_of<3, 10>(program, g, e, u, sums); break;
    default: break;
    }
    cell_error_sums_of<DIM, 0>(program, g, e, u, sums);
}

}  // namespace gpufem
