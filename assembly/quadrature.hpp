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

/// The Grundmann-Moller rule on the unit simplex (dim 2 or 3) of the smallest odd degree
/// 2s+1 >= degree: sum_{i=0..s} (-1)^i 2^-2s (d+n-2i)^d / (i! (d+n-i)!) times f at the
/// barycentric points (2 beta + 1) / (d+n-2i), |beta| = s-i (d = 2s+1, n = dim). Fewer points
/// than the collapsed products on tetrahedra (15 / 35 / 70 / 126 for degree 5 / 7 / 9 / 11
/// against 27 / 64 / 125 / 216), but with negative weights: for integrals of smooth functions
/// (error norms), not for element matrices.
QuadratureRule grundmann_moller_rule(int dim, int degree);

/// The rule exact to degree with the fewest points among gpufem's: Grundmann-Moller on
/// tetrahedra from degree 3 on, otherwise quadrature_rule. May have negative weights.
QuadratureRule fewest_points_rule(ElementType type, int degree);

/// Gauss-Jacobi rule for the weight (1-t)^alpha on [-1, 1] with n points (Golub-Welsch);
/// alpha = 0 gives Gauss-Legendre. Exact for polynomials of degree <= 2n-1 times the weight.
void gauss_jacobi(int n, int alpha, std::vector<double>& points, std::vector<double>& weights);

}  // namespace gpufem
