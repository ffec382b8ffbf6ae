#pragma once
// gpufem's own mesh topology work, on the device or the CPU backend: uniform refinement of
// any mesh and the numbering of degree-k Lagrange nodes (the unknowns) from the mesh's
// vertices, edges, faces and cells (lattice_kernels.hpp says how they are numbered).
// Geometry is isoparametric: new nodes are placed by each cell's own map of its order g, so a
// curved mesh stays the curve its cells describe; refine_and_number then moves the refined
// boundary nodes onto the CAD geometry where the mesh carries its points (cad_boundary.hpp).
#include "linalg/executor.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The mesh with every cell split uniformly once, its order kept: triangles and
/// quadrilaterals into 4, hexahedra into 8, tetrahedra into 8 (4 at the corners, the inner
/// octahedron along its shortest diagonal); children keep their parent's orientation and
/// subdomain, boundary facets are split the same way and stay in their groups. Runs on `exec`;
/// on a CUDA executor the result also keeps its arrays there (Mesh::device). A boundary group
/// whose facets are not faces of the cells moves to ignored_boundaries with the reason.
Mesh refine_uniformly(const Mesh& mesh, const ExecPtr& exec);

/// The mesh with cells of `degree` (1..4; lines, quadrilaterals and hexahedra 1..8): its
/// nodes are the lattice points of that degree, numbered from the topology and placed by each
/// cell's map of the mesh's order g at the degree-`degree` element's nodes (equispaced, GLL
/// from degree 5 on boxes); degree == g only renumbers; below g the geometry becomes that of
/// degree-`degree` cells through those points. Boundary facets follow. Runs on `exec` as
/// refine_uniformly (which takes degrees 1..4 only).
Mesh with_degree(const Mesh& mesh, int degree, const ExecPtr& exec);

/// `refine` refinements, then the nodes of `degree` (with_degree) unless the mesh is already
/// of that degree and refined (numbered by gpufem): unrefined degree-1 meshes keep their
/// numbering. A mesh with a cad_boundary made for `refine` refinements has the boundary nodes
/// the refinements make moved onto the geometry's points (cad_boundary.hpp) before the
/// degree's nodes are placed. A first-order mesh with curved maps (Mesh::curved_cells: prisms,
/// pyramids, several cell types on curved geometry) has every new node placed by them; the
/// result has none (its nodes carry the geometry). On a CUDA executor the meshes between the steps stay on the device; only the
/// result is copied to the host (build_times.host_copy).
Mesh refine_and_number(Mesh mesh, int refine, int degree, const ExecPtr& exec);

}  // namespace gpufem
