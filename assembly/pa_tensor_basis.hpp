#pragma once
// The one-dimensional tables behind the partial-assembly operator: a Q_k reference element's
// nodes and Gauss points as tensor products of points on [-1, 1], the 1D Lagrange basis on
// those nodes tabulated at those points, and the lexicographic orders of both.
#include <optional>
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
    std::vector<double> weights_of_lex;  ///< q1^dim: the rule's weight at each lexicographic point
    std::vector<double> nodes_1d;    ///< p1 node coordinates on [-1, 1], ascending
    std::vector<double> points_1d;   ///< q1 quadrature point coordinates, ascending
    std::vector<double> derivative_at_nodes;  ///< p1 x p1: 1D basis function i's derivative at node k ([k][i])
};

/// A coarser Lagrange space's basis on a box element, as one-dimensional tables at the fine
/// element's quadrature points (for p-multigrid's coarse operator by sum factorisation).
struct PaCoarseTables {
    int pc = 0;                       ///< coarse nodes per direction
    std::vector<double> basis;        ///< q1 x pc: coarse 1D basis function i at fine point q
    std::vector<double> derivative;   ///< its derivative
    std::vector<int> local_of_lex;    ///< pc^dim: the coarse element's node at each lexicographic position
    std::vector<double> at_nodes;     ///< p1 x pc: coarse 1D basis function i at fine node n (the transfer's table)
};

/// The coarse tables of the degree-(pc - 1) Lagrange element of `type` (ncl = pc^dim nodes)
/// when `projections` (npe x ncl, rows in the fine element's node order: the coarse basis at
/// the fine nodes) is exactly their tensor product at the fine nodes (to 1e-12); otherwise
/// nothing (another coarsening, such as a child of a refined cell).
std::optional<PaCoarseTables> pa_coarse_tables(const PaTensorBasis& fine, ElementType type, int ncl,
                                               const std::vector<double>& projections);

/// The tensor structure of ref (a quadrilateral or hexahedron with a Gauss tensor rule).
/// Checks that every tensor-product value B[qx][i] B[qy][j] (B[qz][k]) equals ref's tabulated
/// value of the node at the point; throws std::invalid_argument for other shapes and
/// std::logic_error when the element or rule is not a tensor product.
PaTensorBasis make_pa_tensor_basis(const ReferenceElement& ref);

}  // namespace gpufem
