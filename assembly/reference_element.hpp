#pragma once
// Reference elements of degree 1 (P1 simplices, Q1 boxes) and their quadrature rules.
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
/// (line [-1,1]; triangle/tetrahedron the unit simplex; quadrilateral/hexahedron [-1,1]^d;
/// boxes use Gauss tensor rules, simplices the classic 3- and 4-point rules for degree 2 and
/// collapsed (Duffy) Gauss products otherwise).
QuadratureRule quadrature_rule(ElementType type, int degree);

/// Degree-1 Lagrange basis at one reference point: values[nodes] and gradients[nodes*dim]
/// (node order as Gmsh's).
void lagrange1_basis(ElementType type, const double* xi, double* values, double* gradients);

/// Reference coordinates of the degree-1 nodes (nodes*dim values, Gmsh's order).
std::vector<double> reference_nodes(ElementType type);

/// Basis values and gradients tabulated at the points of a quadrature rule.
struct ReferenceElement {
    ElementType type = ElementType::triangle;
    int dim = 0;
    int nodes = 0;
    QuadratureRule rule;
    std::vector<double> values;     ///< [q][i]: nq * nodes
    std::vector<double> gradients;  ///< [q][i][c]: nq * nodes * dim
    int num_points() const { return rule.size(); }
};

/// Tabulates the degree-1 element of this shape with a rule exact to quadrature_degree.
ReferenceElement make_reference_element(ElementType type, int quadrature_degree);

}  // namespace gpufem
