#pragma once
// Quadrature rules on the reference shapes (Gmsh's: line [-1,1], unit simplices, [-1,1]^d boxes).
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Points and weights on a reference shape (points: dim coordinates each).
struct QuadratureRule {
    int dim = 0;
    std::vector<double> points;
    std::vector<double> weights;
    int size() const { return static_cast<int>(weights.size()); }
};

/// A rule that integrates polynomials of total degree <= degree exactly on the reference shape
/// (line [-1,1]; triangle/tetrahedron the unit simplex; quadrilateral/hexahedron [-1,1]^d).
/// Boxes: Gauss tensor rules, degree/2 + 1 points per direction. Simplices: the classic 1-, 3-
/// and 4-point rules up to degree 2, otherwise collapsed (Duffy) Gauss-Jacobi products with
/// degree/2 + 1 points per direction (the collapse's Jacobian is the Jacobi weight, so the
/// rule is exact to degree 2n-1 in each collapsed direction).
QuadratureRule quadrature_rule(ElementType type, int degree);

/// Gauss-Jacobi rule for the weight (1-t)^alpha on [-1, 1] with n points (Golub-Welsch);
/// alpha = 0 gives Gauss-Legendre. Exact for polynomials of degree <= 2n-1 times the weight.
void gauss_jacobi(int n, int alpha, std::vector<double>& points, std::vector<double>& weights);

}  // namespace gpufem
