#pragma once
// Coefficient kernels: declared once, implemented in cpu/coefficient_kernels.cpp and
// cuda/coefficient_kernels.cu. A coefficient given per region is evaluated region by region
// into one array of values per point (assembly/coefficients.hpp).
#include "assembly/element_data.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/expression_program.hpp"
#include "linalg/backend_kernels.hpp"

namespace gpufem {

/// Where a coefficient is evaluated: the quadrature points of a mesh's cells (geometry's
/// coordinates and tables, in double), or one given point per cell (points: 3 per cell, e.g.
/// the finite volumes' centroids); region: each cell's physical tag, or null.
struct CoefficientPoints {
    ElementArgs<double> geometry{};  ///< read when points is null
    const double* points = nullptr;
    long long num_cells = 0;
    int per_cell = 1;  ///< points per cell: geometry.num_points, or 1 with points
    const int* region = nullptr;
};

#define GPUFEM_KERNEL_LIST "assembly/coefficient_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Whether the packed symmetric dim x dim tensor k (xx xy yy, or xx xy xz yy yz zz) is finite
/// and positive definite (its leading minors are positive).
template <typename V>
GPUFEM_HOST_DEVICE inline bool positive_definite_tensor(const V* k, int dim)
{
    const int n = dim * (dim + 1) / 2;
    for (int i = 0; i < n; ++i)
        if (!(static_cast<double>(k[i]) - static_cast<double>(k[i]) == 0.0)) return false;
    const double a = k[0], b = k[1];
    if (dim == 2) return a > 0 && a * static_cast<double>(k[2]) - b * b > 0;
    const double c = k[2], d = k[3], e = k[4], f = k[5];
    const double minor2 = a * d - b * b;
    const double det = a * (d * f - e * e) - b * (b * f - e * c) + c * (b * e - d * c);
    return a > 0 && minor2 > 0 && det > 0;
}

/// The share of a cell's value in component k of a coefficient of `components` (1: a scalar;
/// 3 or 6: a packed symmetric tensor, xx xy yy or xx xy xz yy yz zz): 1 on the diagonal, else 0.
GPUFEM_HOST_DEVICE inline double cell_value_component(int k, int components)
{
    if (components == 3) return k == 0 || k == 2 ? 1.0 : 0.0;
    if (components == 6) return k == 0 || k == 3 || k == 5 ? 1.0 : 0.0;
    return 1.0;
}

/// Position of point q of cell c of the points (the quadrature position, or the given point).
GPUFEM_HOST_DEVICE inline void coefficient_point(const CoefficientPoints& at, long long c, int q, double (&p)[3])
{
    if (at.points) {
        for (int a = 0; a < 3; ++a) p[a] = at.points[3 * c + a];
        return;
    }
    const ElementArgs<double>& g = at.geometry;
    p[0] = p[1] = p[2] = 0.0;
    const index_type* nodes = g.cells + c * g.nodes_per_cell;
    for (int i = 0; i < g.nodes_per_cell; ++i) {
        const double n = g.values[q * g.nodes_per_cell + i];
        const double* x = g.coordinates + 3 * static_cast<long long>(nodes[i]);
        for (int a = 0; a < 3; ++a) p[a] += n * x[a];
    }
}

}  // namespace gpufem
