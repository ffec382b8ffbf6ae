#pragma once
// Reference elements of any order (P1-P4 simplices, Q1-Q8 boxes, GLL nodes from Q5) tabulated
// at the points of a quadrature rule.
#include <vector>

#include "assembly/quadrature.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Degree-1 Lagrange basis at one reference point: values[nodes] and gradients[nodes*dim]
/// (node order as Gmsh's); the shape's linear_basis (mesh/shapes/cell_shape.hpp).
void lagrange1_basis(ElementType type, const double* xi, double* values, double* gradients);

/// Reference coordinates of the degree-1 nodes (the shape's reference_corners, Gmsh's order).
std::vector<double> reference_nodes(ElementType type);

/// Basis values and gradients of the order-k Lagrange element tabulated at the points of a
/// quadrature rule (node order as Gmsh's, that of Mesh::cells).
struct ReferenceElement {
    ElementType type = ElementType::triangle;
    int degree = 1;
    int dim = 0;
    int nodes = 0;
    QuadratureRule rule;
    std::vector<double> values;     ///< [q][i]: nq * nodes
    std::vector<double> gradients;  ///< [q][i][c]: nq * nodes * dim
    int num_points() const { return rule.size(); }
};

/// Tabulates the Lagrange element of this shape and order (max_lagrange_degree) at a rule exact to
/// quadrature_degree: order 1 from the hand-written lagrange1_basis, order >= 2 from the Gmsh
/// basis (mesh/lagrange_basis.hpp).
ReferenceElement make_reference_element(ElementType type, int order, int quadrature_degree);

/// The same at a given rule (e.g. fewest_points_rule for error integrals).
ReferenceElement make_reference_element(ElementType type, int order, QuadratureRule rule);

}  // namespace gpufem
