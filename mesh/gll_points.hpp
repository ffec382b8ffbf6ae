#pragma once
// The nodes of the box elements of degree 5 to 8: Gauss-Lobatto-Legendre points. Equispaced
// nodes of high degree make an ill-conditioned basis (its Lebesgue constant grows like 2^k);
// the GLL points keep it small and are where sum-factorised operators put their nodes. Lines,
// quadrilaterals and hexahedra of degree 1 to 4 keep the equispaced nodes; simplices, prisms
// and pyramids stop at degree 4.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The lowest degree whose box elements have GLL nodes.
inline constexpr int first_gll_degree = 5;

/// The n >= 2 Gauss-Lobatto-Legendre points of [-1, 1], ascending: -1, the roots of P'_{n-1}
/// (Newton's method from the Chebyshev-Gauss-Lobatto points), 1; symmetric to rounding.
std::vector<double> gll_points(int n);

/// Whether the degree-k element of this shape has GLL nodes (lines, quadrilaterals and
/// hexahedra of degree >= first_gll_degree).
bool has_gll_nodes(ElementType type, int degree);

/// The degree + 1 node positions of the degree-k line on [-1, 1] as the box elements of that
/// degree use them per direction: equispaced, or GLL from first_gll_degree.
std::vector<double> line_node_positions(int degree);

}  // namespace gpufem
