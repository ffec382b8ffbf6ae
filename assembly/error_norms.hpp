#pragma once
// Errors of a nodal Lagrange solution (any order) against an exact solution given as an
// expression, computed where the solution lives (the expression runs on the device).
#include <span>
#include <vector>

#include "linalg/host_vector.hpp"

#include "assembly/expression.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Discretisation errors (double precision).
struct ErrorNorms {
    double l2 = 0;         ///< ||u - u_h||_L2 (quadrature exact to degree 2k+2, k the order)
    double h1_semi = 0;    ///< |u - u_h|_H1 (the exact solution's gradient by forward-mode
                           ///< differentiation of its expression)
    double max_nodal = 0;  ///< max_i |u(x_i) - u_h,i| over all Lagrange nodes (NaN if any is)
    double l2_exact = 0;   ///< ||u||_L2, to form relative errors
};

/// The error norms with the exact solution and the error u_h - u at every node (host copies,
/// for the output), or at the nodes' equispaced points (compute_errors with a conversion).
struct NodalErrors {
    ErrorNorms norms;
    HostVector<double> exact;  ///< u(x_i)
    HostVector<double> error;  ///< u_h,i - u(x_i)
};

class EquispacedConversion;

/// Integrates the errors cell by cell on the mesh's isoparametric order-k cells on u's
/// executor: the mesh geometry goes there once, the exact solution is evaluated there at every
/// quadrature point (value and central-difference gradient) and node; only the three sums,
/// the maximum and the two nodal fields come back. u: one value per node. With equispaced (a
/// mesh with GLL nodes, on u's executor) the two fields are converted to the equispaced points
/// there, before they are copied (the norms and max_nodal stay the nodes').
template <typename V>
NodalErrors compute_errors(const Mesh& mesh, const Array<V>& u, const Expression& exact,
                           const EquispacedConversion* equispaced = nullptr);

/// The norms of a host solution (computed on the CPU executor).
ErrorNorms compute_errors(const Mesh& mesh, std::span<const double> u, const Expression& exact);

}  // namespace gpufem
