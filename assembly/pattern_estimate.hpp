#pragma once
// The size of the finite-element matrix of a mesh before it is assembled: rows, non-zeros,
// longest row, slice padding and band, for the memory estimate.
#include "linalg/format_registry.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {

/// The shape of the Lagrange matrix on a mesh (one row per node of the mesh's degree).
/// Exact non-zeros for the generated unit square and unit cube: their counts are polynomials
/// in the boxes per unit length n (tensor products for quadrilaterals and hexahedra; fitted
/// once, with integer coefficients, for the triangles and Kuhn tetrahedra; checked by tests).
/// Otherwise rows x the mean row length of that cell type and degree on a large structured
/// mesh (not checked against unstructured Gmsh meshes; their P1 tetrahedra have about 15 per
/// row, as Kuhn's). The longest row is the structured mesh's (an unstructured mesh has longer
/// ones); the slice padding is that of lattice order for quadrilaterals and hexahedra, halfway
/// between the mean and the longest row otherwise; the band is the lattice order's.
MatrixShape estimated_matrix_shape(const MeshCounts& mesh, double value_bytes);

}  // namespace gpufem
