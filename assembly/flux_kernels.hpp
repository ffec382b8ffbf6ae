#pragma once
// Flux kernels: declared once, implemented in cpu/flux_kernels.cpp and cuda/flux_kernels.cu on
// top of point_flux (below), the flux of a finite-element solution at one point of one cell.
#include "assembly/element_data.hpp"
#include "assembly/jacobian.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "assembly/flux_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// What a solution is at one point of a cell: its value, its gradient and the flux
/// -kappa grad u_h (the third components 0 in 2D), and |det J| there.
struct PointSolution {
    double value = 0;
    double gradient[3] = {0, 0, 0};
    double flux[3] = {0, 0, 0};
    double measure = 0;
};

/// What a solution is at point qe (= e * num_points + q) of a, from the Jacobian J of the
/// cell's map there and u's value and reference gradient (however they were computed); inv:
/// J's inverse, written.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline PointSolution point_solution(const ElementArgs<V>& a, long long qe, const V (&J)[DIM][DIM],
                                                       double value, const double (&reference)[DIM],
                                                       V (&inv)[DIM][DIM])
{
    const V det = invert_jacobian<DIM>(J, inv);
    PointSolution p;
    p.measure = static_cast<double>(det < 0 ? -det : det);
    p.value = value;
    for (int d = 0; d < DIM; ++d)
        for (int c = 0; c < DIM; ++c) p.gradient[d] += static_cast<double>(inv[c][d]) * reference[c];
    V K[DIM][DIM];
    weighted_kappa<DIM>(a, qe, V(1), K);
    for (int d = 0; d < DIM; ++d)
        for (int c = 0; c < DIM; ++c) p.flux[d] -= static_cast<double>(K[d][c]) * p.gradient[c];
    return p;
}

/// The solution u (one value per node) at point q of cell e of a (isoparametric: J from all
/// the cell's nodes), kappa at the point from a's coefficients.
template <int DIM, typename V, typename U>
GPUFEM_HOST_DEVICE inline PointSolution point_flux(const ElementArgs<V>& a, index_type e, int q, const U* u)
{
    const int n = a.nodes_per_cell;
    const index_type* nodes = a.cells + static_cast<long long>(e) * n;
    const V* dN = a.gradients + static_cast<long long>(q) * n * DIM;
    V J[DIM][DIM], inv[DIM][DIM];
    cell_jacobian<DIM>(n, nodes, a.coordinates, dN, J);
    double value = 0, reference[DIM] = {};
    for (int i = 0; i < n; ++i) {
        const double ui = static_cast<double>(u[nodes[i]]);
        value += static_cast<double>(a.values[q * n + i]) * ui;
        for (int c = 0; c < DIM; ++c) reference[c] += static_cast<double>(dN[i * DIM + c]) * ui;
    }
    return point_solution<DIM>(a, static_cast<long long>(e) * a.num_points + q, J, value, reference, inv);
}

/// Number of sums a cell's pass accumulates over its points: the integrals of 1, u, f, c u and
/// b . grad u, then the integral of the flux's three components.
inline constexpr int cell_sum_count = 8;

/// The solution p at point q of cell e (qe = e * num_points + q) added into the cell's sums
/// (cell_sum_count values, see above).
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void add_solution_sums(const ElementArgs<V>& a, long long qe, int q, const PointSolution& p,
                                                 double* sums)
{
    const double w = static_cast<double>(a.weights[q]) * p.measure;
    double convection = 0;
    for (int d = 0; d < DIM; ++d) convection += static_cast<double>(velocity_at(a, qe, d)) * p.gradient[d];
    sums[0] += w;
    sums[1] += w * p.value;
    sums[2] += w * static_cast<double>(a.f[a.f_stride * qe]);
    sums[3] += w * static_cast<double>(reaction_at(a, qe)) * p.value;
    sums[4] += w * convection;
    for (int d = 0; d < 3; ++d) sums[5 + d] += w * p.flux[d];
}

/// Point q of cell e added into a cell's sums (cell_sum_count values, see above).
template <int DIM, typename V, typename U>
GPUFEM_HOST_DEVICE inline void add_point_sums(const ElementArgs<V>& a, index_type e, int q, const U* u, double* sums)
{
    add_solution_sums<DIM>(a, static_cast<long long>(e) * a.num_points + q, q, point_flux<DIM>(a, e, q, u), sums);
}

/// The terms of a cell's residual (K_e u - f_e)_i = sum_q grad_xi N_i(q) . z(q) + N_i(q) s(q)
/// at its point q (qe = e * num_points + q), from the solution p there and the inverse
/// Jacobian inv: z = w |det J| J^-1 kappa grad u (so that grad N_i . kappa grad u w |det J| =
/// grad_xi N_i . z) and s = w |det J| (b . grad u + c u - f).
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void residual_point_terms(const ElementArgs<V>& a, long long qe, int q, const PointSolution& p,
                                                    const V (&inv)[DIM][DIM], double (&z)[DIM], double& s)
{
    const double w = static_cast<double>(a.weights[q]) * p.measure;
    double convection = 0;
    for (int c = 0; c < DIM; ++c) {
        z[c] = 0;
        for (int d = 0; d < DIM; ++d) z[c] -= static_cast<double>(inv[c][d]) * p.flux[d] * w;
        convection += static_cast<double>(velocity_at(a, qe, c)) * p.gradient[c];
    }
    s = w * (convection + static_cast<double>(reaction_at(a, qe)) * p.value - static_cast<double>(a.f[a.f_stride * qe]));
}

/// A cell's mean flux (3 values) and integrals (volume, u, f, c u, b . grad u) from its sums,
/// value k at mean_flux[k stride] and integrals[k stride].
GPUFEM_HOST_DEVICE inline void write_cell_sums(const double* sums, long long stride, double* mean_flux,
                                               double* integrals)
{
    for (int d = 0; d < 3; ++d) mean_flux[d * stride] = sums[0] > 0 ? sums[5 + d] / sums[0] : 0.0;
    for (int k = 0; k < 5; ++k) integrals[k * stride] = sums[k];
}

/// Cell e's mean flux and integrals over a's quadrature points (write_cell_sums' layout).
template <int DIM, typename V, typename U>
GPUFEM_HOST_DEVICE inline void cell_flux_and_integrals(const ElementArgs<V>& a, index_type e, const U* u,
                                                       long long stride, double* mean_flux, double* integrals)
{
    double sums[cell_sum_count] = {};
    for (int q = 0; q < a.num_points; ++q) add_point_sums<DIM>(a, e, q, u, sums);
    write_cell_sums(sums, stride, mean_flux, integrals);
}

}  // namespace gpufem
