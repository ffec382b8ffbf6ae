#pragma once
// Errors of a nodal Lagrange solution (any order) against an exact solution given as an
// expression.
#include <span>

#include "assembly/expression.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Discretisation errors (host, double precision).
struct ErrorNorms {
    double l2 = 0;         ///< ||u - u_h||_L2 (quadrature exact to degree 2k+2, k the order)
    double h1_semi = 0;    ///< |u - u_h|_H1 (exact gradient by sixth-order central differences,
                           ///< step 1e-3 times the mesh's extent)
    double max_nodal = 0;  ///< max_i |u(x_i) - u_h,i| over all Lagrange nodes
    double l2_exact = 0;   ///< ||u||_L2, to form relative errors
};

/// Integrates the errors cell by cell on the mesh's isoparametric order-k cells.
ErrorNorms compute_errors(const Mesh& mesh, std::span<const double> u, const Expression& exact);

/// The exact solution at every node (vertices and high-order nodes).
std::vector<double> nodal_values(const Mesh& mesh, const Expression& expr);

}  // namespace gpufem
