#pragma once
// Geometric factors of one quadrature point of one cell for the element kernels of any order
// (isoparametric: the map uses all the cell's nodes and the order-k reference gradients),
// written once for the host and the device.
#include "assembly/element_data.hpp"
#include "linalg/host_device.hpp"
#include "assembly/jacobian.hpp"

namespace gpufem {

/// Values stored per quadrature point: the packed symmetric DIM x DIM matrix
/// G = w |det J| J^-1 kappa J^-T (DIM(DIM+1)/2 values, rows of the upper triangle:
/// 2D G00 G01 G11, 3D G00 G01 G02 G11 G12 G22), then w |det J| f, then with the lower-order
/// terms the reference-frame velocity beta = w |det J| J^-1 b (DIM values, zero without
/// convection) and w |det J| c (zero without reaction).
template <int DIM>
GPUFEM_HOST_DEVICE constexpr int geometry_stride(bool lower_order)
{
    return DIM * (DIM + 1) / 2 + 1 + (lower_order ? DIM + 1 : 0);
}
/// Position of w |det J| f among a point's factors.
template <int DIM>
inline constexpr int geometry_load_slot = DIM * (DIM + 1) / 2;
/// Position of beta (with the lower-order terms) among a point's factors.
template <int DIM>
inline constexpr int geometry_convection_slot = DIM * (DIM + 1) / 2 + 1;
/// Position of w |det J| c (with the lower-order terms) among a point's factors.
template <int DIM>
inline constexpr int geometry_reaction_slot = DIM * (DIM + 1) / 2 + 1 + DIM;

/// Writes the geometry_stride<DIM>(a.has_lower_order) factors of point q of cell e to out.
/// With them, K_ij = sum_q (dN_i^T G_q + N_i beta_q^T) dN_j + (w |det J| c)_q N_i N_j,
/// f_i = sum_q (w |det J| f)_q N_i, N and dN the reference values and gradients at q
/// (b . grad_x N_j = (J^-1 b) . dN_j).
/// J: the Jacobian of the cell's map at q (J[d][c] = dx_d / dxi_c), however it was computed.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void point_geometry_of_jacobian(const ElementArgs<V>& a, index_type e, int q,
                                                          V (&J)[DIM][DIM], V* out)
{
    V inv[DIM][DIM];
    const V det = invert_jacobian<DIM>(J, inv);
    const V w = a.weights[q] * (det < 0 ? -det : det);
    const long long qe = static_cast<long long>(e) * a.num_points + q;
    int s = 0;
    if (a.kappa_components == 1) {
        const V wk = w * a.kappa[a.kappa_stride * qe];
        for (int c = 0; c < DIM; ++c)
            for (int c2 = c; c2 < DIM; ++c2) {
                V g = 0;
                for (int d = 0; d < DIM; ++d) g += inv[c][d] * inv[c2][d];
                out[s++] = wk * g;
            }
    } else {
        V K[DIM][DIM];
        weighted_kappa<DIM>(a, qe, w, K);
        for (int c = 0; c < DIM; ++c)
            for (int c2 = c; c2 < DIM; ++c2) {
                V g = 0;
                for (int d = 0; d < DIM; ++d)
                    for (int d2 = 0; d2 < DIM; ++d2) g += inv[c][d] * K[d][d2] * inv[c2][d2];
                out[s++] = g;
            }
    }
    out[geometry_load_slot<DIM>] = w * a.f[a.f_stride * qe];
    if (!a.has_lower_order) return;
    for (int c = 0; c < DIM; ++c) {
        V beta = 0;
        for (int d = 0; d < DIM; ++d) beta += inv[c][d] * velocity_at(a, qe, d);
        out[geometry_convection_slot<DIM> + c] = w * beta;
    }
    out[geometry_reaction_slot<DIM>] = w * reaction_at(a, qe);
}

/// point_geometry_of_jacobian with J from the cell's nodes and the reference gradients at q.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void point_geometry(const ElementArgs<V>& a, index_type e, int q,
                                              V* out)
{
    const index_type* nodes = a.cells + static_cast<long long>(e) * a.nodes_per_cell;
    const V* dN = a.gradients + static_cast<long long>(q) * a.nodes_per_cell * DIM;
    V J[DIM][DIM];
    cell_jacobian<DIM>(a.nodes_per_cell, nodes, a.coordinates, dN, J);
    point_geometry_of_jacobian<DIM>(a, e, q, J, out);
}

/// h = G v for the packed symmetric G of point_geometry.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void apply_packed(const V* G, const V* v, V (&h)[DIM])
{
    if constexpr (DIM == 2) {
        h[0] = G[0] * v[0] + G[1] * v[1];
        h[1] = G[1] * v[0] + G[2] * v[1];
    } else {
        h[0] = G[0] * v[0] + G[1] * v[1] + G[2] * v[2];
        h[1] = G[1] * v[0] + G[3] * v[1] + G[4] * v[2];
        h[2] = G[2] * v[0] + G[4] * v[1] + G[5] * v[2];
    }
}

/// h = G dN_i + N_i beta at one point, from the factors geo of point_geometry (beta only
/// when LOWER): entry (i, j) of the element matrix gains h . dN_j there (and, when LOWER,
/// N_i (w |det J| c) N_j).
template <int DIM, bool LOWER, typename V>
GPUFEM_HOST_DEVICE inline void row_vector(const V* geo, const V* dN_i, V N_i, V (&h)[DIM])
{
    apply_packed<DIM>(geo, dN_i, h);
    if constexpr (LOWER)
        for (int c = 0; c < DIM; ++c) h[c] += N_i * geo[geometry_convection_slot<DIM> + c];
}

}  // namespace gpufem
