#pragma once
// Boundary-condition kernels: Dirichlet values at the nodes of a group's facets and the
// Neumann load of its facets, evaluated from an ExpressionProgram on the executor (the
// coordinates are already there; nothing per point crosses the bus). Declared once,
// implemented in cpu/boundary_kernels.cpp and cuda/boundary_kernels.cu.
#include <cstdint>

#include "assembly/expression_program.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Reference tables of one facet type (on the executor): quadrature weights [q], shape
/// values [q][i] and reference gradients [q][i][c] of a facet with nodes_per_facet nodes,
/// dim = 1 (lines) or 2 (triangles, quadrilaterals).
struct FacetTables {
    int dim = 0;
    int nodes_per_facet = 0;
    int num_points = 0;
    const double* weights = nullptr;
    const double* values = nullptr;
    const double* gradients = nullptr;
};

#define GPUFEM_KERNEL_LIST "assembly/boundary_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Position x and measure |J| (length or area element) of quadrature point q of a facet with
/// the given node indices (shared by both backends and the error messages).
GPUFEM_HOST_DEVICE inline double facet_point(const FacetTables& t, const double* coordinates,
                                             const index_type* nodes, int q, double x[3])
{
    double tangent[2][3] = {{0, 0, 0}, {0, 0, 0}};
    x[0] = x[1] = x[2] = 0;
    for (int i = 0; i < t.nodes_per_facet; ++i) {
        const double* xi = coordinates + 3 * static_cast<long long>(nodes[i]);
        const double n_i = t.values[q * t.nodes_per_facet + i];
        for (int d = 0; d < 3; ++d) {
            x[d] += n_i * xi[d];
            for (int c = 0; c < t.dim; ++c)
                tangent[c][d] += t.gradients[(q * t.nodes_per_facet + i) * t.dim + c] * xi[d];
        }
    }
    if (t.dim == 1)
        return sqrt(tangent[0][0] * tangent[0][0] + tangent[0][1] * tangent[0][1] +
                    tangent[0][2] * tangent[0][2]);
    const double n0 = tangent[0][1] * tangent[1][2] - tangent[0][2] * tangent[1][1];
    const double n1 = tangent[0][2] * tangent[1][0] - tangent[0][0] * tangent[1][2];
    const double n2 = tangent[0][0] * tangent[1][1] - tangent[0][1] * tangent[1][0];
    return sqrt(n0 * n0 + n1 * n1 + n2 * n2);
}

}  // namespace gpufem
