#pragma once
// Geometric factors of one quadrature point of one cell for the element kernels of any order
// (isoparametric: the map uses all the cell's nodes and the order-k reference gradients),
// written once for the host and the device.
#include "assembly/element_data.hpp"
#include "assembly/host_device.hpp"
#include "assembly/jacobian.hpp"

namespace gpufem {

/// Values stored per quadrature point: the packed symmetric DIM x DIM matrix
/// G = w |det J| kappa J^-1 J^-T (DIM(DIM+1)/2 values, rows of the upper triangle:
/// 2D G00 G01 G11, 3D G00 G01 G02 G11 G12 G22) followed by w |det J| f.
template <int DIM>
inline constexpr int geometry_stride = DIM * (DIM + 1) / 2 + 1;

/// Writes the geometry_stride<DIM> factors of point q of cell e to out. With them,
/// K_ij = sum_q dN_i(q)^T G_q dN_j(q) and f_i = sum_q (w |det J| f)_q N_i(q), dN the
/// reference gradients.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void point_geometry(const ElementArgs<V>& a, index_type e, int q,
                                              V* out)
{
    const index_type* nodes = a.cells + static_cast<long long>(e) * a.nodes_per_cell;
    const V* dN = a.gradients + static_cast<long long>(q) * a.nodes_per_cell * DIM;
    V J[DIM][DIM], inv[DIM][DIM];
    cell_jacobian<DIM>(a.nodes_per_cell, nodes, a.coordinates, dN, J);
    const V det = invert_jacobian<DIM>(J, inv);
    const V w = a.weights[q] * (det < 0 ? -det : det);
    const long long qe = static_cast<long long>(e) * a.num_points + q;
    const V wk = w * a.kappa[a.kappa_stride * qe];
    int s = 0;
    for (int c = 0; c < DIM; ++c)
        for (int c2 = c; c2 < DIM; ++c2) {
            V g = 0;
            for (int d = 0; d < DIM; ++d) g += inv[c][d] * inv[c2][d];
            out[s++] = wk * g;
        }
    out[s] = w * a.f[a.f_stride * qe];
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

}  // namespace gpufem
