#pragma once
// The Jacobian of the element map at a reference point and its inverse, written once for the
// host and the device.
#include <stdexcept>

#include "linalg/host_device.hpp"

namespace gpufem {

/// Inverts the DIM x DIM Jacobian J (J[d][c] = dx_d / dxi_c, DIM 2 or 3) into inv and returns
/// det J. Physical gradients follow as grad_x N = inv^T grad_xi N.
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline V invert_jacobian(const V (&J)[DIM][DIM], V (&inv)[DIM][DIM])
{
    static_assert(DIM == 2 || DIM == 3, "invert_jacobian: 2D or 3D");
    if constexpr (DIM == 2) {
        const V det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
        const V r = V(1) / det;
        inv[0][0] = J[1][1] * r, inv[0][1] = -J[0][1] * r;
        inv[1][0] = -J[1][0] * r, inv[1][1] = J[0][0] * r;
        return det;
    } else {
        const V c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
        const V c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
        const V c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
        const V det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
        const V r = V(1) / det;
        inv[0][0] = c00 * r;
        inv[1][0] = c01 * r;
        inv[2][0] = c02 * r;
        inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * r;
        inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * r;
        inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * r;
        inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * r;
        inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * r;
        inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * r;
        return det;
    }
}

/// J[d][c] = sum_i x_i[d] dN_i[c] over the n nodes of a cell (node coordinates gathered
/// through cells: 3 per node in coordinates; dN: [i][c] at one reference point).
template <int DIM, typename V, typename I>
GPUFEM_HOST_DEVICE inline void cell_jacobian(int n, const I* cell_nodes, const V* coordinates,
                                             const V* dN, V (&J)[DIM][DIM])
{
    for (int d = 0; d < DIM; ++d)
        for (int c = 0; c < DIM; ++c) J[d][c] = V(0);
    for (int i = 0; i < n; ++i) {
        const V* x = coordinates + 3 * static_cast<long long>(cell_nodes[i]);
        for (int d = 0; d < DIM; ++d) {
            const V xd = x[d];
            for (int c = 0; c < DIM; ++c) J[d][c] += xd * dN[i * DIM + c];
        }
    }
}

/// Calls fn.template operator()<DIM>() for DIM 2 or 3.
template <typename Fn>
inline void dispatch_dimension(int dim, Fn&& fn)
{
    if (dim == 2) return fn.template operator()<2>();
    if (dim == 3) return fn.template operator()<3>();
    throw std::invalid_argument("element kernels: dimension must be 2 or 3");
}

}  // namespace gpufem
