#pragma once
// The mesh checked before assembly, on the executor: the sign of det J at every quadrature
// point of every cell (tangled and folded cells), declared once, implemented in
// cpu/geometry_check_kernels.cpp and cuda/geometry_check_kernels.cu.
#include "assembly/element_data.hpp"
#include "assembly/jacobian.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// What the Jacobian check found: cells whose det J keeps one sign at every quadrature point
/// (counted by sign, with the first of each), and the first cell where it vanishes, is not
/// finite or changes sign (-1: none).
struct JacobianSigns {
    long long positive = 0;        ///< cells with det J > 0 at every point
    long long negative = 0;        ///< cells with det J < 0 at every point
    long long first_positive = -1;
    long long first_negative = -1;
    long long first_degenerate = -1;  ///< cell * num_points + q of the lowest bad point
};

#define GPUFEM_KERNEL_LIST "assembly/geometry_check_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Sign class of one cell (shared by both backends): +1 or -1 when det J has that sign at
/// every quadrature point, 0 otherwise; bad_point gets the first point where det J is zero,
/// not finite or of another sign than at point 0.
/// The sign of det J: +1, -1, or 0 where it is zero or not finite (J by rows or by columns).
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline int jacobian_sign(const V (&J)[DIM][DIM])
{
    V inv[DIM][DIM];
    const double det = static_cast<double>(invert_jacobian<DIM>(J, inv));
    if (!(det - det == 0.0)) return 0;
    return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

/// The sign of det J of cell e at point q (jacobian_sign).
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline int point_jacobian_sign(const ElementArgs<V>& a, long long e, int q)
{
    V J[DIM][DIM];
    cell_jacobian<DIM>(a.nodes_per_cell, a.cells + e * a.nodes_per_cell, a.coordinates,
                       a.gradients + static_cast<long long>(q) * a.nodes_per_cell * DIM, J);
    return jacobian_sign<DIM>(J);
}

template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline int cell_jacobian_sign(const ElementArgs<V>& a, long long e, int& bad_point)
{
    int sign = 0;
    for (int q = 0; q < a.num_points; ++q) {
        const int s = point_jacobian_sign<DIM>(a, e, q);
        if (s == 0 || (q > 0 && s != sign)) {
            bad_point = q;
            return 0;
        }
        sign = s;
    }
    return sign;
}

}  // namespace gpufem
