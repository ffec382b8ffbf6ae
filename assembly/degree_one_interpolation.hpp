#pragma once
// The interpolation from the degree-1 Lagrange space of a mesh's vertices into the mesh's own
// degree-k Lagrange space: the first transfer of p-multigrid (degree k -> 1 on the same mesh).
#include "linalg/csr.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// P (mesh nodes x mesh vertices): row j holds the degree-1 basis functions of a cell that
/// contains node j, evaluated at j's reference point (entries below 1e-14 dropped), so that
/// P u1 is the degree-k representation of the degree-1 function u1. Columns are the vertex
/// nodes in node order (column c is the c-th node that is some cell's vertex). Conforming
/// meshes give the same row from every cell around a node. Built on the host (one pass over
/// the cells, rows in parallel) and uploaded to exec. A degree-1 mesh gives the identity.
template <typename V>
Csr<V> degree_one_interpolation(const Mesh& mesh, const ExecPtr& exec);

}  // namespace gpufem
