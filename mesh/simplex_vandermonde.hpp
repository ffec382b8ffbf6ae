#pragma once
// Internal to mesh/: the Lagrange bases of triangles and tetrahedra of order 3 and 4, from the
// inverse of the monomials' Vandermonde matrix at the element's nodes (Gmsh's reference
// nodes, gmsh_reference_table). A complete polynomial space and its nodes fix the basis, so
// these are Gmsh's functions, computed without its library.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Whether vandermonde_simplex_basis takes this element: triangles and tetrahedra of order 3
/// and 4.
bool has_vandermonde_basis(ElementType type, int order);

/// The Lagrange basis of a triangle or tetrahedron of order 3 or 4 at reference points (dim
/// coordinates each), in Gmsh's node order: values one per point and node, gradients dim per
/// point and node. The inverse Vandermonde matrix is made once per element (thread-safe).
void vandermonde_simplex_basis(ElementType type, int order, const std::vector<double>& points,
                               std::vector<double>& values, std::vector<double>& gradients);

}  // namespace gpufem
