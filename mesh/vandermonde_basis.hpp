#pragma once
// Internal to mesh/: Lagrange bases from the inverse of a spanning set's Vandermonde matrix at
// the element's nodes (Gmsh's reference nodes, gmsh_reference_table): triangles and
// tetrahedra of order 3 and 4 (the monomials of total degree <= order), and pyramids of order
// 1 to 4 (the rational space of Bergot, Cohen and Durufle that Gmsh uses, spanned by
// u^a v^b w^c (1 - w)^(max(a, b) - a - b), a, b <= order, c <= order - max(a, b)). A space and
// its nodes fix the basis, so these are Gmsh's functions, computed without its library.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Whether vandermonde_basis takes this element: triangles and tetrahedra of order 3 and 4,
/// pyramids of order 1 to 4.
bool has_vandermonde_basis(ElementType type, int order);

/// The Lagrange basis of such an element at reference points (dim coordinates each), in
/// Gmsh's node order: values one per point and node, gradients dim per point and node. The
/// pyramid's rational functions are singular at the apex (0, 0, 1) only; there they take
/// their limits along the axis, as Gmsh's do (values exact, gradients the axis limits). The
/// inverse Vandermonde matrix is made once per element (thread-safe).
void vandermonde_basis(ElementType type, int order, const std::vector<double>& points,
                       std::vector<double>& values, std::vector<double>& gradients);

}  // namespace gpufem
