#pragma once
// Errors of a nodal degree-1 solution against an exact solution given as an expression.
#include <span>

#include "assembly/expression.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Discretisation errors (host, double precision).
struct ErrorNorms {
    double l2 = 0;         ///< ||u - u_h||_L2 (quadrature exact to degree 4, boxes 5)
    double h1_semi = 0;    ///< |u - u_h|_H1 (exact gradient by central differences, h = 1e-6)
    double max_nodal = 0;  ///< max_i |u(x_i) - u_h,i|
    double l2_exact = 0;   ///< ||u||_L2, to form relative errors
};

/// Integrates the errors cell by cell.
ErrorNorms compute_errors(const Mesh& mesh, std::span<const double> u, const Expression& exact);

/// The exact solution at every node.
std::vector<double> nodal_values(const Mesh& mesh, const Expression& expr);

}  // namespace gpufem
