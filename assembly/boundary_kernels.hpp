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

#define GPUFEM_BOUNDARY_KERNELS(V, PREFIX, BODY)                                             \
    /** For k < n with node = nodes[k]: value = program at coordinates[3 node ..] (double),   \
        mask[node] = 1, values[node] = value (a node listed twice gets the same value, so    \
        the order of writes does not matter). Returns the first k whose value is not         \
        finite, or -1. */                                                                     \
    PREFIX long long set_dirichlet_values(const Executor& exec, const ExprInstruction* program, \
                                          const double* coordinates, const index_type* nodes,   \
                                          index_type n, std::uint8_t* mask, V* values) BODY     \
    /** rhs[node_i] += sum_q w_q |J_q| g(x_q) N_i(q) over the facets (nodes_per_facet node    \
        indices each in facet_nodes) of an isoparametric Lagrange facet map. Returns the      \
        first facet * num_points + q where g is not finite (rhs is then partly updated), or   \
        -1. cpu: facets in order (deterministic); cuda: one thread per facet, atomic adds     \
        (as the element scatter). */                                                         \
    PREFIX long long add_neumann_load(const Executor& exec, const ExprInstruction* program,  \
                                      const double* coordinates, const index_type* facet_nodes, \
                                      index_type num_facets, const FacetTables& tables, V* rhs) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_BOUNDARY_KERNELS)

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
