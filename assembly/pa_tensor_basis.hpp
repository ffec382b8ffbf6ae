#pragma once
// The one-dimensional tables behind the partial-assembly operator: a Q_k reference element's
// nodes and Gauss points as tensor products of points on [-1, 1], the 1D Lagrange basis on
// those nodes tabulated at those points, and the lexicographic orders of both.
#include <vector>

#include "assembly/reference_element.hpp"

namespace gpufem {

/// A box element's tensor-product structure.
struct PaTensorBasis {
    int dim = 0;
    int p1 = 0;  ///< nodes per direction (degree + 1)
    int q1 = 0;  ///< quadrature points per direction
    std::vector<double> basis;       ///< B[q][i]: q1 x p1, 1D basis function i at point q
    std::vector<double> derivative;  ///< D[q][i]: its derivative
    std::vector<int> gmsh_of_lex;    ///< p1^dim: the element's (Gmsh-order) node at each
                                     ///< lexicographic position (x fastest)
    std::vector<int> rule_of_lex;    ///< q1^dim: the rule's point at each lexicographic position
};

/// The tensor structure of ref (a quadrilateral or hexahedron with a Gauss tensor rule).
/// Checks that every tensor-product value B[qx][i] B[qy][j] (B[qz][k]) equals ref's tabulated
/// value of the node at the point; throws std::invalid_argument for other shapes and
/// std::logic_error when the element or rule is not a tensor product.
PaTensorBasis make_pa_tensor_basis(const ReferenceElement& ref);

}  // namespace gpufem
